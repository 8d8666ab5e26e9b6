// Runs per second of the Baton server with 1, 2 and 3 worker processes sharing one PostgreSQL
// and one Redis (docs/scaling-server.md), on this machine, then the time from a SIGKILL of a process
// to the takeover of its run (with a 3 s lease), and that run's ledger rows by attempt. Figures
// to read, never assertions.
//
//   pnpm --filter @baton/bench exec tsx --conditions=@baton/source src/scale-out.ts [runs] [stepMs]
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { findPostgresBinaries, startPostgres } from '@baton/testing/postgres'
import { startRedisServer } from '@baton/testing/redis'
import {
  type ClusterFixture,
  type ClusterProcess,
  loadClusterFixture,
} from './servers/cluster-fixture'

const serverSource = fileURLToPath(new URL('../../apps/server/src/', import.meta.url))

// Loaded by path at run time, as the other server rows are: the bench measures the server.
async function load<T>(file: string): Promise<T> {
  return (await import(pathToFileURL(path.join(serverSource, file)).href)) as T
}

type Fixtures = {
  cluster: ClusterFixture
  plans: {
    cutShortPlan(options: { name: string; waiter: string; waitMs: number }): unknown
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
  const started: ClusterProcess[] = []
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

async function getJson<T>(url: string): Promise<T> {
  return (await (await fetch(url)).json()) as T
}

/**
 * Two workers with a 3 s lease: a run of slow steps is started, its executor is killed with
 * SIGKILL mid-step, and the time until the other process holds the run is measured.
 */
async function measureTakeover(
  fixtures: Fixtures,
  cluster: { createDatabase(): Promise<string> },
  redisUrl: string,
) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-bench-takeover-'))
  const started: ClusterProcess[] = []
  try {
    const processes = await fixtures.cluster.startCluster({
      names: ['worker-1', 'worker-2'],
      databaseUrl: await cluster.createDatabase(),
      redisUrl,
      dataDir,
      environment: { LOG_LEVEL: 'error', BATON_LEASE_MS: '3000' },
      started,
    })
    // The second step spends at once, then waits: killed in that wait, it has spent mid-step.
    const slow = fixtures.plans.cutShortPlan({
      name: 'bench-takeover',
      waiter: '0x1111111111111111111111111111111111111111',
      waitMs: 3000,
    })
    const response = await fetch(`${processes[0]!.url}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ plan: slow }),
    })
    const { id } = (await response.json()) as { id: string }
    type Run = { status: string; executedBy: string | null; steps: unknown[] }
    let run: Run
    const spentInSecondStep = async () =>
      (
        await getJson<{ entries: { stepPath: string | null }[] }>(
          `${processes[0]!.url}/api/v1/runs/${id}/ledger`,
        )
      ).entries.some((row) => row.stepPath?.startsWith('steps[1]'))
    do {
      await new Promise((resolve) => setTimeout(resolve, 20))
      run = await getJson<Run>(`${processes[0]!.url}/api/v1/runs/${id}`)
    } while (run.status !== 'running' || !(await spentInSecondStep()))
    const victim = processes.find((server) => server.name === run.executedBy)!
    const survivor = processes.find((server) => server !== victim)!
    victim.child.kill('SIGKILL')
    const killedAt = performance.now()
    await victim.exited
    do {
      await new Promise((resolve) => setTimeout(resolve, 50))
      run = await getJson<Run>(`${survivor.url}/api/v1/runs/${id}`)
    } while (run.executedBy === victim.name)
    const takeoverMs = performance.now() - killedAt
    do {
      await new Promise((resolve) => setTimeout(resolve, 100))
      run = await getJson<Run>(`${survivor.url}/api/v1/runs/${id}`)
    } while (!['done', 'failed', 'stopped', 'cancelled'].includes(run.status))
    const ledger = await getJson<{
      entries: { stepPath: string | null; attempt: number | null; calls: number }[]
      usage: { calls: number }
      ledgerTotal: { calls: number }
    }>(`${survivor.url}/api/v1/runs/${id}/ledger`)
    return { takeoverMs, status: run.status, ledger }
  } finally {
    await fixtures.cluster.stopCluster(started)
    await rm(dataDir, { recursive: true, force: true })
  }
}

const fixtures: Fixtures = {
  cluster: await loadClusterFixture(),
  plans: await load('__fixtures__/slow-plans.ts'),
}
const bin = findPostgresBinaries()
if (!bin) throw new Error('PostgreSQL binaries not found (apt-get install -y postgresql)')
const postgres = await startPostgres(bin)
const redis = await startRedisServer({ persistence: 'append-only' })
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
  const takeover = await measureTakeover(fixtures, postgres, redis.url)
  console.log(
    `SIGKILL mid-step to takeover (lease 3000 ms): ${takeover.takeoverMs.toFixed(0)} ms; run ${takeover.status}`,
  )
  const rows = takeover.ledger.entries.map((row) => `${row.stepPath}#${row.attempt}`).join(', ')
  console.log(
    `  its ledger (step#attempt): ${rows}; usage ${takeover.ledger.usage.calls} calls, ledger ${takeover.ledger.ledgerTotal.calls}`,
  )
} finally {
  await redis.stop()
  await postgres.stop()
}
