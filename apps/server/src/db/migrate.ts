import { type Kysely, Migrator } from 'kysely'
import type { Database } from './database'
import { migrationProvider } from './migrations'

/**
 * Runs every migration not yet applied; throws the first failure.
 *
 * @example
 * await migrate(db)
 */
export async function migrate(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    // 0002 was listed after databases had already run 0003+; it is idempotent and no release
    // exists yet, so such a database runs it late instead of being refused.
    allowUnorderedMigrations: true,
  })
  const { error } = await migrator.migrateToLatest()
  if (error) throw error
}
