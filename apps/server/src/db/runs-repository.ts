import type { Kysely } from 'kysely'
import type { Database } from './database'
import type { GroupCommit } from './group-commit'
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
 * entries and the run's new state are written in one statement (`commitStep`), so a crash
 * leaves either all of them or none; with the process's group commit, new runs and the fenced
 * writes of every run go to the database together, one statement per turn of the writer.
 *
 * @example
 * const runs = createRunsRepository(db)
 * await runs.create({ id, kind: 'plan', plan, inputs })
 */
export function createRunsRepository(db: Kysely<Database>, writer?: GroupCommit) {
  return {
    ...createRunRecordsRepository(db, writer),
    ...createRunRecoveryRepository(db),
    ...createRunEventsRepository(db, writer),
    ...createRunCommitsRepository(db, writer),
  }
}

export type RunsRepository = ReturnType<typeof createRunsRepository>
