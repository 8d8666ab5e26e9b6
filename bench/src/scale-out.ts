// Runs per second of the Baton server with 1, 2 and 3 worker processes sharing one PostgreSQL
// and one Redis (docs/scaling.md), on this machine. A figure to read, never an assertion.
//
//   pnpm --filter @baton/bench exec tsx --conditions=@baton/source src/scale-out.ts [runs] [stepMs]
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const serverSource = fileURLToPath(new URL('../../apps/server/src/', import.meta.url))

// Loaded by path at run time, as the other server rows are: the bench measures the server.
async function load<T>(file: string): Promise<T> {
  return (await import(pathToFileURL(path.join(serverSource, file)).href)) as T
}

type Process = { url: string; name: string; child: { kill(signal: string): void } }
type Fixtures = {
  postgres: {
    findPostgresBinaries(): string | undefined
    startPostgres(bin: string): Promise<{
      url: string
      createDatabase(): Promise<string>
      stop(): Promise<void>
    }>
  }
  redis: { startRedisServer(): Promise<{ url: string; stop(): Promise<void> }> }
  cluster: {
    startCluster(options: {
      names: string[]
      databaseUrl: string
      redisUrl: string
      dataDir: string
      environment?: Record<string, string>
      started: Process[]
    }): Promise<Process[]>
    stopCluster(processes: Process[]): Promise<void>
  }
}

const runs = Number(process.argv[2] ?? 300)
const stepMs = Number(process.argv[3] ?? 100)
const plan = {
  name: 'bench-scale-out',
  steps: [0, 1].map((index) => ({
    op: 'delegate',
    saveAs: `s${index}`,
    agentWallet: '0x1111111111111111111111111111111111111111',
    prompt: `[[sleep:${stepMs}]] step ${index}`,
  })),
}

async function countDone(url: string): Promise<number> {
  const response = await fetch(`${url}/api/v1/runs?status=done&limit=1`)
  return ((await response.json()) as { total: number }).total
}

/** Submits `runs` runs round-robin to an api process and times them until all are done. */
async function measure(
  fixtures: Fixtures,
  workers: number,
  cluster: { createDatabase(): Promise<string> },
  redisUrl: string,
) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-bench-scale-'))
  const started: Process[] = []
  try {
    const databaseUrl = await cluster.createDatabase()
    const names = Array.from({ length: workers }, (_, index) => `worker-${index + 1}`)
    const processes = await fixtures.cluster.startCluster({
      names,
      databaseUrl,
      redisUrl,
      dataDir,
      environment: { LOG_LEVEL: 'error' },
      started,
    })
    const begin = performance.now()
    await Promise.all(
      Array.from({ length: runs }, (_, index) =>
        fetch(`${processes[index % processes.length]!.url}/api/v1/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ plan }),
        }),
      ),
    )
    while ((await countDone(processes[0]!.url)) < runs) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const seconds = (performance.now() - begin) / 1000
    return { workers, runs, seconds, perSecond: runs / seconds }
  } finally {
    await fixtures.cluster.stopCluster(started)
    await rm(dataDir, { recursive: true, force: true })
  }
}

const fixtures: Fixtures = {
  postgres: await load('__fixtures__/postgres.ts'),
  redis: await load('scale/__fixtures__/redis-server.ts'),
  cluster: await load('scale/__fixtures__/cluster.ts'),
}
const bin = fixtures.postgres.findPostgresBinaries()
if (!bin) throw new Error('PostgreSQL binaries not found (apt-get install -y postgresql)')
const postgres = await fixtures.postgres.startPostgres(bin)
const redis = await fixtures.redis.startRedisServer()
try {
  console.log(
    `scale-out: ${runs} runs of 2 delegate steps of ${stepMs} ms, concurrency 8 per process`,
  )
  for (const workers of [1, 2, 3]) {
    const row = await measure(fixtures, workers, postgres, redis.url)
    console.log(
      `  ${workers} worker process(es): ${row.perSecond.toFixed(1)} runs/s (${row.seconds.toFixed(2)} s)`,
    )
  }
} finally {
  await redis.stop()
  await postgres.stop()
}
