import type { RunFileStore } from '@baton/mal'
import type { RunFilesRepository } from '../db/run-files-repository'

/**
 * mal's file store over the run files table: a run's screenshots go to the database (on PGlite
 * its data folder, on PostgreSQL the server's database, never this machine's disk).
 *
 * @example
 * runPlan(plan, { ...options, files: runFileStore(repositories.runFiles) })
 */
export function runFileStore(files: RunFilesRepository): RunFileStore {
  return {
    save: (file) =>
      files.save({
        runId: file.runId,
        name: file.name,
        stepPath: file.path,
        mediaType: file.mediaType,
        data: file.data,
      }),
  }
}
