import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createDatabase } from '@baton/testing/postgres'
import { hasRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/database'
import { openDatabase } from '../../db/open-database'
import { createRepositories, type Repositories } from '../../db/repositories'
import { type ClusterProcess, startCluster, stopCluster } from './cluster'

/**
 * What a scale test runs on: a Redis of its own (append-only), a fresh database in the test
 * run's PostgreSQL cluster, server processes sharing both, and the test's own connection to
 * the database. Every part started is recorded as it starts, so `close` stops what a failed
 * start left running.
 */
export type ScaleCluster = {
  /** Every process started, in order. */
  readonly started: ClusterProcess[]
  redis?: RedisServer
  db?: Kysely<Database>
  repositories?: Repositories
  /** Starts the parts (see `startCluster` for the processes); resolves with the processes. */
  start(options: {
    postgresUrl: string
    names: string[]
    environment?: Record<string, string>
    environmentOf?: Record<string, Record<string, string>>
  }): Promise<ClusterProcess[]>
  /** The process named `name` (throws when there is none). */
  byName(name: string): ClusterProcess
  /** Stops the processes, closes the database connection, stops Redis, removes the folder. */
  close(): Promise<void>
}

/**
 * A scale cluster to start in a `beforeAll` and close in an `afterAll`; `tempPrefix` names its
 * temporary folder (each process has a data folder in it).
 *
 * @example
 * const cluster = scaleCluster('baton-scale-')
 * beforeAll(() => cluster.start({ postgresUrl, names: ['a', 'b'] }), 180_000)
 * afterAll(() => cluster.close(), 60_000)
 */
export function scaleCluster(tempPrefix: string): ScaleCluster {
  let dataDir: string | undefined
  const cluster: ScaleCluster = {
    started: [],
    async start({ postgresUrl, names, environment, environmentOf }) {
      if (!hasRedis) throw new Error('redis-server is required under CI=true')
      if (!postgresUrl) throw new Error('PostgreSQL is required under CI=true')
      dataDir = await mkdtemp(path.join(tmpdir(), tempPrefix))
      cluster.redis = await startRedisServer({ persistence: 'append-only' })
      const databaseUrl = await createDatabase(postgresUrl)
      const processes = await startCluster({
        names,
        databaseUrl,
        redisUrl: cluster.redis.url,
        dataDir,
        ...(environment ? { environment } : {}),
        ...(environmentOf ? { environmentOf } : {}),
        started: cluster.started,
      })
      cluster.db = (await openDatabase({ dataDir, databaseUrl })).db
      cluster.repositories = createRepositories(cluster.db)
      return processes
    },
    byName(name) {
      const found = cluster.started.find((server) => server.name === name)
      if (!found) throw new Error(`no process ${name}`)
      return found
    },
    async close() {
      await stopCluster(cluster.started)
      await cluster.db?.destroy()
      await cluster.redis?.stop()
      if (dataDir) await rm(dataDir, { recursive: true, force: true })
    },
  }
  return cluster
}
