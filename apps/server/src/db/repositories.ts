import type { Kysely } from 'kysely'
import { type AgentsRepository, createAgentsRepository } from './agents-repository'
import { type ApiKeysRepository, createApiKeysRepository } from './api-keys-repository'
import type { Database } from './database'
import type { GroupCommit } from './group-commit'
import { createIdempotencyRepository, type IdempotencyRepository } from './idempotency-repository'
import { createLedgerRepository, type LedgerRepository } from './ledger-repository'
import { createMessagesRepository, type MessagesRepository } from './messages-repository'
import { createPlansRepository, type PlansRepository } from './plans-repository'
import { createRunFilesRepository, type RunFilesRepository } from './run-files-repository'
import { createRunsRepository, type RunsRepository } from './runs-repository'
import {
  createSwarmJournalRepository,
  type SwarmJournalRepository,
} from './swarm-journal-repository'
import { createSwarmsRepository, type SwarmsRepository } from './swarms-repository'

export type Repositories = {
  agents: AgentsRepository
  swarms: SwarmsRepository
  plans: PlansRepository
  runs: RunsRepository
  runFiles: RunFilesRepository
  ledger: LedgerRepository
  messages: MessagesRepository
  swarmJournal: SwarmJournalRepository
  apiKeys: ApiKeysRepository
  idempotency: IdempotencyRepository
}

/**
 * Every repository over one database; the ledger's records, the bus's envelopes and the
 * runs' writes go through the process's group commit when one is given.
 *
 * @example
 * const repositories = createRepositories(db, createGroupCommit(db))
 */
export function createRepositories(db: Kysely<Database>, writer?: GroupCommit): Repositories {
  return {
    agents: createAgentsRepository(db),
    swarms: createSwarmsRepository(db),
    plans: createPlansRepository(db),
    runs: createRunsRepository(db, writer),
    runFiles: createRunFilesRepository(db),
    ledger: createLedgerRepository(db, writer),
    messages: createMessagesRepository(db, writer),
    swarmJournal: createSwarmJournalRepository(db),
    apiKeys: createApiKeysRepository(db),
    idempotency: createIdempotencyRepository(db),
  }
}
