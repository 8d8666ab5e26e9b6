import type { Kysely } from 'kysely'
import type { Database } from './database'
import { createRunCommitsRepository } from './run-commits-repository'
import { createRunEventsRepository } from './run-events-repository'
import { createRunRecordsRepository } from './run-records-repository'
import { createRunRecoveryRepository } from './run-recovery-repository'

export { assertHeld } from './assert-held'
export {
  finalStatuses,
  type RunStatus,
  type StoredEvent,
  type StoredRun,
  type StoredStep,
} from './stored-run'

/**
 * Runs, their finished steps and their events. A finished step, its event, its ledger
 * entries and the run's new state are written in one transaction (`commitStep`), so a crash
 * leaves either all of them or none.
 *
 * @example
 * const runs = createRunsRepository(db)
 * await runs.create({ id, kind: 'plan', plan, inputs })
 */
export function createRunsRepository(db: Kysely<Database>) {
  return {
    ...createRunRecordsRepository(db),
    ...createRunRecoveryRepository(db),
    ...createRunEventsRepository(db),
    ...createRunCommitsRepository(db),
  }
}

export type RunsRepository = ReturnType<typeof createRunsRepository>
