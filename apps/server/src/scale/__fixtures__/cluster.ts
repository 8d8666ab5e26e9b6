import path from 'node:path'
import { type ServerProcess, startServerProcess } from '../../__fixtures__/server-process'

export type ClusterProcess = ServerProcess & { name: string }

/**
 * Starts server processes (`main.ts`) sharing one PostgreSQL and one Redis, each on a free
 * port and named after its `BATON_WORKER_NAME`. The first starts alone (it migrates and seeds
 * the demo), the others together after it.
 *
 * @example
 * const processes = await startCluster({ names: ['a', 'b', 'c'], databaseUrl, redisUrl })
 */
export async function startCluster(options: {
  names: string[]
  databaseUrl: string
  redisUrl: string
  /** A temporary folder; each process gets a data folder in it. */
  dataDir: string
  environment?: Record<string, string>
  /** Extra variables of single processes, by name (e.g. `{ d: { BATON_ROLE: 'api' } }`). */
  environmentOf?: Record<string, Record<string, string>>
  /** Every process started is pushed here at once, so the caller can stop it even on failure. */
  started: ClusterProcess[]
}): Promise<ClusterProcess[]> {
  const [first, ...rest] = options.names
  const one = async (name: string, seed: boolean) => {
    const server = await startServerProcess({
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl,
      BATON_WORKER_NAME: name,
      BATON_SEED: String(seed),
      BATON_RATE_LIMIT: '1000000',
      BATON_DATA_DIR: path.join(options.dataDir, name),
      ...options.environment,
      ...options.environmentOf?.[name],
    })
    const process = { ...server, name }
    options.started.push(process)
    return process
  }
  const head = first ? [await one(first, true)] : []
  const tail = await Promise.all(rest.map((name) => one(name, false)))
  return [...head, ...tail]
}

/** Stops every process: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopCluster(processes: ClusterProcess[], graceMs = 10_000): Promise<void> {
  await Promise.all(processes.map((server) => server.stop({ graceMs })))
}
