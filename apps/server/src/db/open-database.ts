import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import pg from 'pg'
import type { Database } from './database'
import { migrationProvider } from './migrations'

export type OpenDatabaseOptions = {
  /** PostgreSQL instead of the embedded database. */
  databaseUrl?: string | undefined
  /** The data folder (PGlite lives in `pglite/` under it); `memory://` keeps it in memory. */
  dataDir: string
  /**
   * For an in-memory database: a PGlite data folder dump (`dumpDataDir`) to start from,
   * which skips `initdb` (tests start many databases).
   */
  template?: Blob | undefined
}

export type OpenedDatabase = {
  db: Kysely<Database>
  /** `pglite` or `postgres`. */
  kind: 'pglite' | 'postgres'
  /** Where the data lives (the PGlite folder, or the URL without credentials). */
  location: string
}

/**
 * Opens the database (PGlite in the data folder, or PostgreSQL at `databaseUrl`) and runs
 * every pending migration.
 *
 * @example
 * const { db } = await openDatabase({ dataDir: './.baton' })
 * await db.selectFrom('agents').selectAll().execute()
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<OpenedDatabase> {
  let opened: OpenedDatabase
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 })
    const url = new URL(options.databaseUrl)
    url.username = ''
    url.password = ''
    opened = {
      db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
      kind: 'postgres',
      location: url.toString(),
    }
  } else if (options.dataDir === 'memory://') {
    const pglite = await PGlite.create(options.template ? { loadDataDir: options.template } : {})
    opened = {
      db: new Kysely<Database>({ dialect: new PGliteDialect(pglite) }),
      kind: 'pglite',
      location: 'memory://',
    }
  } else {
    const folder = path.join(options.dataDir, 'pglite')
    await mkdir(folder, { recursive: true })
    const pglite = await PGlite.create(folder)
    opened = {
      db: new Kysely<Database>({ dialect: new PGliteDialect(pglite) }),
      kind: 'pglite',
      location: folder,
    }
  }
  try {
    await migrate(opened.db)
  } catch (error) {
    await opened.db.destroy()
    throw error
  }
  return opened
}

/** Runs every migration not yet applied; throws the first failure. */
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

/** True when the database answers a trivial query. */
export async function isDatabaseReachable(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db)
    return true
  } catch {
    return false
  }
}
