import { BatonError } from '@baton/core'
import { type Kysely, Migrator, sql } from 'kysely'
import type { Database } from './database'
import { migrationProvider, migrations } from './migrations'

/**
 * The database was brought up to date by a newer Baton: it has run migrations this one does
 * not know, and a database is never migrated down.
 */
export class DatabaseFromNewerBatonError extends BatonError {
  override name = 'DatabaseFromNewerBatonError'
  constructor(options: { location: string; unknown: string[] }) {
    const [first, ...more] = options.unknown
    const names = more.length > 0 ? `${first} (and ${more.length} more)` : first
    super(
      'DATABASE_FROM_NEWER_BATON',
      `The database ${options.location} was brought up to date by a newer Baton: it has run migration ${names}, which this one does not know. Start the newer Baton on it, or give this one another database (BATON_DATA_DIR or DATABASE_URL); a database is never migrated down.`,
      { details: { location: options.location, unknown: options.unknown } },
    )
  }
}

/**
 * Runs every migration not yet applied; throws the first failure. A database that has run a
 * migration this Baton does not know (a newer one's) is a `DatabaseFromNewerBatonError`
 * naming it and `location` (what an operator knows the database by), and nothing is run.
 *
 * @example
 * await migrate(db, { location: './.baton/pglite' })
 */
export async function migrate(
  db: Kysely<Database>,
  options: { location?: string } = {},
): Promise<void> {
  const unknown = (await executedMigrations(db)).filter((name) => !Object.hasOwn(migrations, name))
  if (unknown.length > 0) {
    throw new DatabaseFromNewerBatonError({
      location: options.location ?? 'being opened',
      unknown,
    })
  }
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

/** The names of the migrations the database has run (none when it has run none yet). */
async function executedMigrations(db: Kysely<Database>): Promise<string[]> {
  const table = await sql<{
    present: string | null
  }>`select to_regclass('kysely_migration') as present`.execute(db)
  if (!table.rows[0]?.present) return []
  const { rows } = await sql<{
    name: string
  }>`select name from kysely_migration order by name`.execute(db)
  return rows.map((row) => row.name)
}
