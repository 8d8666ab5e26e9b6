import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { findPostgresBinaries, type PostgresCluster, startPostgres } from '@baton/testing/postgres'
import { afterAll, beforeAll } from 'vitest'
import { type ServerProcess, startServerProcess } from './server-process'

/**
 * A server process on a PostgreSQL cluster of the test file's own, which its tests may stop,
 * freeze or make read-only: both started before the file's tests (with `environment`, the
 * cluster's database and a data folder of their own) and stopped after them, by PID. Without
 * PostgreSQL's binaries `available` is false (the file's tests skip, saying so under `what`);
 * under `CI=true` that fails instead.
 *
 * @example
 * const own = serverOnOwnPostgres('postgres faults', { BATON_SEED: 'true' })
 * describe.skipIf(!own.available)('...', () => { it('...', () => own.cluster.halt()) })
 */
export function serverOnOwnPostgres(what: string, environment: Record<string, string>) {
  const bin = findPostgresBinaries()
  if (!bin && process.env.CI === 'true') throw new Error('PostgreSQL is required under CI=true')
  if (!bin) console.warn(`[${what}] PostgreSQL binaries not found: skipping.`)
  let cluster: PostgresCluster | undefined
  let server: ServerProcess | undefined
  let databaseUrl = ''
  let dataDir: string | undefined

  beforeAll(async () => {
    if (!bin) return
    dataDir = await mkdtemp(path.join(tmpdir(), `baton-${what.replace(/\W+/g, '-')}-`))
    cluster = await startPostgres(bin)
    databaseUrl = await cluster.createDatabase()
    server = await startServerProcess({
      ...environment,
      DATABASE_URL: databaseUrl,
      BATON_DATA_DIR: dataDir,
    })
  }, 180_000)
  afterAll(async () => {
    await server?.stop({ signal: 'SIGKILL' })
    await cluster?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  return {
    available: bin !== undefined,
    get cluster(): PostgresCluster {
      return cluster!
    },
    get server(): ServerProcess {
      return server!
    },
    /** The name of the server's database in the cluster. */
    get databaseName(): string {
      return new URL(databaseUrl).pathname.slice(1)
    },
  }
}
