import type { Migration, MigrationProvider } from 'kysely'
import * as initial from './0001-initial'
import * as a2aTasks from './0002-a2a-tasks'
import * as agentsSearch from './0003-agents-search'
import * as conclave from './0005-conclave'
import * as runsExecutedBy from './0006-runs-executed-by'
import * as ledgerStepAttempt from './0007-ledger-step-attempt'
import * as swarmCalls from './0008-swarm-calls'
import * as a2aRegistrationTenants from './0009-a2a-registration-tenants'
import * as authPrincipals from './0010-auth-principals'
import * as idempotencyKeys from './0011-idempotency-keys'
import * as runsTrace from './0012-runs-trace'
import * as runtimeSecrets from './0014-runtime-secrets'
import * as swarmOwners from './0015-swarm-owners'
import * as runFiles from './0016-run-files'
import * as ledgerConversation from './0017-ledger-conversation'
import * as memoryEntriesNewest from './0018-memory-entries-newest'
import * as a2aTasksInProgress from './0019-a2a-tasks-in-progress'
import * as idempotencyResource from './0020-idempotency-resource'
import * as messagesSent from './0021-messages-sent'
import * as a2aTasksStartedBy from './0022-a2a-tasks-started-by'

/**
 * Every migration, in order. Conventions (see README.md here): one file per change, named
 * `NNNN-what-it-does.ts` with the next free number, exporting `up(db)` (and `down` if it
 * can be undone); add it to this list under the same name. Never edit a released file:
 * add a new one.
 */
export const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-a2a-tasks': a2aTasks,
  '0003-agents-search': agentsSearch,
  '0005-conclave': conclave,
  '0006-runs-executed-by': runsExecutedBy,
  '0007-ledger-step-attempt': ledgerStepAttempt,
  '0008-swarm-calls': swarmCalls,
  '0009-a2a-registration-tenants': a2aRegistrationTenants,
  '0010-auth-principals': authPrincipals,
  '0011-idempotency-keys': idempotencyKeys,
  '0012-runs-trace': runsTrace,
  '0014-runtime-secrets': runtimeSecrets,
  '0015-swarm-owners': swarmOwners,
  '0016-run-files': runFiles,
  '0017-ledger-conversation': ledgerConversation,
  '0018-memory-entries-newest': memoryEntriesNewest,
  '0019-a2a-tasks-in-progress': a2aTasksInProgress,
  '0020-idempotency-resource': idempotencyResource,
  '0021-messages-sent': messagesSent,
  '0022-a2a-tasks-started-by': a2aTasksStartedBy,
}

/** Kysely's `Migrator` reads the list above (a static provider: no file system look-ups). */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations
  },
}
