import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { type Dialect, Kysely, PostgresDialect, sql } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import pg from 'pg'
import { problemWithin } from '../health/problem-within'
import { assertWritableFolder, DataFolderUnavailableError } from './data-folder'
import { type DataFolderLock, lockDataFolder } from './data-folder-lock'
import type { Database } from './database'
import { databaseFaultOf } from './database-errors'
import { migrate } from './migrate'
import { openPglite, pgliteConfiguration } from './open-pglite'
import { withStatementCache } from './pglite-statement-cache'
import { withNamedStatements } from './postgres-named-statements'
import { withDatabaseFaults } from './with-database-faults'

export { migrate } from './migrate'

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
  /**
   * PostgreSQL: how long a connection attempt or a query may take before it fails with
   * `DATABASE_UNAVAILABLE` (default 10 s), so nothing waits on a database that is away.
   */
  timeoutMs?: number | undefined
  /**
   * PostgreSQL: keep the statements the server repeats prepared on each connection (default
   * true; see `withNamedStatements`). The embedded database always does.
   */
  prepare?: boolean | undefined
  /**
   * PGlite in a folder: who holds the folder while the database is open, as another process
   * refused it would be told (default `a Baton server`; see `lockDataFolder`).
   */
  holder?: string | undefined
  /**
   * PostgreSQL: a pooled connection that broke while nobody used it (the server went away or
   * terminated it). The pool drops it and connects again when asked; this only reports it.
   */
  onConnectionError?: ((error: Error) => void) | undefined
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
    const timeoutMs = options.timeoutMs ?? 10_000
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: 10,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
      keepAlive: true,
    })
    // Without a listener, one dropped idle connection is an unhandled 'error' event: the
    // process would exit. A checked-out client gets one too (a drop between two queries).
    const report = (error: Error) => options.onConnectionError?.(error)
    pool.on('error', report)
    pool.on('connect', (client) => client.on('error', report))
    const url = new URL(options.databaseUrl)
    url.username = ''
    url.password = ''
    const location = url.toString()
    opened = {
      db: new Kysely<Database>({
        dialect: withDatabaseFaults(
          new PostgresDialect({
            pool: options.prepare === false ? pool : withNamedStatements(pool),
          }),
          location,
        ),
      }),
      kind: 'postgres',
      location,
    }
  } else if (options.dataDir === 'memory://') {
    const pglite = await PGlite.create({
      postgresqlconf: pgliteConfiguration,
      ...(options.template ? { loadDataDir: options.template } : {}),
    })
    opened = {
      db: new Kysely<Database>({
        dialect: withDatabaseFaults(
          new PGliteDialect(withStatementCache(pglite) as PGlite),
          'memory://',
        ),
      }),
      kind: 'pglite',
      location: 'memory://',
    }
  } else {
    const folder = pgliteFolderOf(options.dataDir)
    await assertWritableFolder(folder)
    // One process per folder: a second one would overwrite the first one's writes.
    const lock = await lockDataFolder(folder, options.holder ?? 'a Baton server')
    const pglite = await openPglite(folder).catch(async (error: unknown) => {
      await lock.release()
      throw startupFault(error, folder)
    })
    opened = {
      db: new Kysely<Database>({
        dialect: releasedWhenDestroyed(
          withDatabaseFaults(new PGliteDialect(withStatementCache(pglite) as PGlite), folder),
          lock,
        ),
      }),
      kind: 'pglite',
      location: folder,
    }
  }
  try {
    await migrate(opened.db, { location: opened.location })
  } catch (error) {
    await opened.db.destroy().catch(() => {})
    throw opened.kind === 'pglite' && opened.location !== 'memory://'
      ? startupFault(error, opened.location)
      : error
  }
  return opened
}

/** `dialect`, whose driver gives `lock` up once it is destroyed (the database closed). */
function releasedWhenDestroyed(dialect: Dialect, lock: DataFolderLock): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => {
      const driver = dialect.createDriver()
      const destroy = driver.destroy.bind(driver)
      driver.destroy = async () => {
        try {
          await destroy()
        } finally {
          await lock.release()
        }
      }
      return driver
    },
  }
}

/**
 * Why the database does not answer a trivial query within `timeoutMs`, or would refuse a
 * write (a standby after a failover, a database made read-only); undefined when it is fine.
 *
 * @example
 * const problem = await databaseProblem(db, 2_000) // 'no answer within 2000 ms'
 */
export function databaseProblem(
  db: Kysely<Database>,
  timeoutMs: number,
): Promise<string | undefined> {
  return problemWithin(async () => {
    const { rows } = await sql<{
      readOnly: string
    }>`select current_setting('transaction_read_only') as "readOnly"`.execute(db)
    return rows[0]?.readOnly === 'on' ? 'read-only: it refuses writes' : undefined
  }, timeoutMs)
}

/**
 * A PGlite folder that failed to open or migrate: when the folder is the cause (full, read-only)
 * the error says so, naming it; any other error is left as it is.
 */
function startupFault(error: unknown, folder: string): unknown {
  if (error instanceof DataFolderUnavailableError) return error
  const errno = emscriptenErrno[(error as { errno?: number }).errno ?? -1]
  if (errno) return new DataFolderUnavailableError({ folder, errno, cause: error })
  const fault = databaseFaultOf(error, folder)
  if (fault?.code === 'STORAGE_UNAVAILABLE') {
    const readOnly = /read-only/i.test(fault.message)
    return new DataFolderUnavailableError({
      folder,
      errno: readOnly ? 'EROFS' : 'ENOSPC',
      cause: error,
    })
  }
  return error
}

// PGlite's file system reports the errno numbers of Emscripten, not of the operating system.
const emscriptenErrno: Record<number, string> = {
  2: 'EACCES',
  44: 'ENOENT',
  51: 'ENOSPC',
  54: 'ENOTDIR',
  63: 'EPERM',
  69: 'EROFS',
}

/**
 * Where PGlite keeps its files in a data folder (`pglite/` under it).
 *
 * @example
 * pgliteFolderOf('/srv/baton') // '/srv/baton/pglite'
 */
export function pgliteFolderOf(dataDir: string): string {
  return path.join(dataDir, 'pglite')
}
