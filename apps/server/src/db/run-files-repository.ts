import type { Kysely } from 'kysely'
import type { Database } from './database'

/** A file of a run, as it is served. */
export type StoredRunFile = { name: string; stepPath: string; mediaType: string; data: Uint8Array }

export type RunFilesRepository = {
  /** Keeps a file of a run; one of the same name (a step run again on resume) is replaced. */
  save(file: {
    runId: string
    name: string
    stepPath: string
    mediaType: string
    data: Uint8Array
  }): Promise<void>
  /** The file `name` of run `runId`, if it has one of that exact name. */
  find(runId: string, name: string): Promise<StoredRunFile | undefined>
}

/**
 * The files a run's steps left behind (its tasks' screenshots), in the database on PGlite and
 * PostgreSQL alike; deleted with their run.
 *
 * @example
 * await files.save({ runId, name: 'steps[0]/screenshots/screenshot-1.png', stepPath: 'steps[0]', mediaType: 'image/png', data })
 */
export function createRunFilesRepository(db: Kysely<Database>): RunFilesRepository {
  return {
    async save(file) {
      const row = {
        run_id: file.runId,
        name: file.name,
        step_path: file.stepPath,
        media_type: file.mediaType,
        data: file.data,
      }
      await db
        .insertInto('run_files')
        .values(row)
        .onConflict((conflict) =>
          conflict.columns(['run_id', 'name']).doUpdateSet({
            step_path: row.step_path,
            media_type: row.media_type,
            data: row.data,
          }),
        )
        .execute()
    },
    async find(runId, name) {
      const row = await db
        .selectFrom('run_files')
        .select(['name', 'step_path', 'media_type', 'data'])
        .where('run_id', '=', runId)
        .where('name', '=', name)
        .executeTakeFirst()
      if (!row) return undefined
      return {
        name: row.name,
        stepPath: row.step_path,
        mediaType: row.media_type,
        data: row.data,
      }
    },
  }
}
