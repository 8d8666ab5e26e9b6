import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { findPostgresBinaries, startPostgres } from '@baton/testing/postgres'
import { hasRedis, startRedisServer } from '@baton/testing/redis'
import { formatNumber } from '../../report/format-number'
import {
  type ClusterFixture,
  type ClusterProcess,
  loadClusterFixture,
} from '../../servers/cluster-fixture'
import { SEEDED_AGENT } from '../../servers/start-baton-server'
import type { Size, Subjects } from '../types'
import { type BackendCounts, readBackendCounts } from './backend-counts'
import { processTreeCpuMs } from './process-cpu'
import { WORKER_COUNTS } from './scale-out-case'

const plan = {
  name: 'bench-scale-out',
  steps: [{ op: 'delegate', saveAs: 'answer', agentWallet: SEEDED_AGENT.wallet, prompt: 'Hi' }],
}
const body = JSON.stringify({ plan })
// Requests in flight at once, spread round-robin over the processes.
const inFlight = 16
// Runs each process serves before the clock: V8 compiles a process's hot path over its first
// hundred or so runs, on threads whose CPU the process's figure counts. With 2 runs per process
// a cold process's compiling was measured as if every run cost it (1 worker 4.6–5.25 ms per run
// warmed with 2, 3.7–4.1 with 150; 3 workers 6.8–7.4 → 5–6), in proportion to how few runs
// each process served: more workers, each colder.
const warmRunsPerProcess = 150

async function total(url: string, status: string): Promise<number> {
  const response = await fetch(`${url}/api/v1/runs?status=${status}&limit=1`)
  return ((await response.json()) as { total: number }).total
}

/**
 * Starts `runs` one-step runs through `processes` and waits until every one has ended:
 * until the database holds `runs + before` done, `before` being those done before them.
 */
async function runThrough(processes: ClusterProcess[], runs: number, before = 0): Promise<void> {
  let next = 0
  const submit = async () => {
    while (next < runs) {
      const index = next++
      const server = processes[index % processes.length]!
      const response = await fetch(`${server.url}/api/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      if (response.status !== 202) {
        throw new Error(`POST /api/v1/runs answered ${response.status}: ${await response.text()}`)
      }
    }
  }
  await Promise.all(Array.from({ length: inFlight }, submit))
  const started = performance.now()
  for (;;) {
    const done = (await total(processes[0]!.url, 'done')) - before
    if (done >= runs) return
    const failed = await total(processes[0]!.url, 'failed')
    if (failed > 0) throw new Error(`${failed} of ${runs} runs failed`)
    if (performance.now() - started > 300_000) throw new Error(`${done} of ${runs} runs done`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

async function measure(options: {
  fixture: ClusterFixture
  workers: number
  runs: number
  databaseUrl: string
  redisUrl: string
}) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-bench-scale-'))
  const started: ClusterProcess[] = []
  try {
    const processes = await options.fixture.startCluster({
      names: Array.from({ length: options.workers }, (_, index) => `worker-${index + 1}`),
      databaseUrl: options.databaseUrl,
      redisUrl: options.redisUrl,
      dataDir,
      environment: { LOG_LEVEL: 'error', ...profiled() },
      started,
    })
    const pids = processes.map((server) => server.child.pid!)
    // Each process warm before the clock: it has loaded and compiled what a run needs.
    const warm = processes.length * warmRunsPerProcess
    await runThrough(processes, warm)
    if (profileDirectory) {
      await mkdir(profileDirectory, { recursive: true })
      for (const pid of pids) process.kill(pid, 'SIGUSR2')
    }
    const countsBefore = await readBackendCounts(options.databaseUrl, options.redisUrl)
    const cpuBefore = processTreeCpuMs(pids)
    const begin = performance.now()
    await runThrough(processes, options.runs, warm)
    const seconds = (performance.now() - begin) / 1000
    const cpuMs = processTreeCpuMs(pids) - cpuBefore
    const countsAfter = await readBackendCounts(options.databaseUrl, options.redisUrl)
    const perRun = (key: keyof BackendCounts) =>
      (countsAfter[key] - countsBefore[key]) / options.runs
    return {
      perSecond: options.runs / seconds,
      cpuMsPerRun: cpuMs / options.runs,
      transactionsPerRun: perRun('transactions'),
      redisCommandsPerRun: perRun('redisCommands'),
      publishesPerRun: perRun('publishes'),
    }
  } finally {
    await options.fixture.stopCluster(started)
    await rm(dataDir, { recursive: true, force: true })
  }
}

// With --profile, every server process profiles the measured runs (from a SIGUSR2) and writes
// its profile as it stops, named after the process (`worker-2-<pid>`).
const profileDirectory = process.env.BATON_BENCH_PROFILE_DIR
  ? path.join(process.env.BATON_BENCH_PROFILE_DIR, 'server')
  : undefined
function profiled(): Record<string, string> {
  if (!profileDirectory) return {}
  const preload = fileURLToPath(new URL('./cpu-profile-preload.mjs', import.meta.url))
  return {
    NODE_OPTIONS: `--import=${pathToFileURL(preload).href}`,
    BATON_BENCH_SERVER_PROFILE_DIR: profileDirectory,
  }
}

const runsAt = (size: Size) => (size === 'full' ? 400 : 0)

/**
 * Each worker count on a database of its own in one PostgreSQL cluster and one Redis, both
 * started here on 127.0.0.1 (free ports); the server processes are the scale-out tests' own
 * (`main.ts` from sources, the demo seeded, the offline model).
 */
export const scaleOutSubjects: Subjects = {
  async baton(size) {
    if (size === 'tiny') {
      // Three clusters of server processes take minutes to start on two cores: not a smoke test.
      return {
        value: 0,
        text: 'not measured at --size tiny (it starts PostgreSQL, Redis and 6 server processes)',
      }
    }
    const bin = findPostgresBinaries()
    if (!bin) throw new Error('skipped: PostgreSQL binaries not found (apt-get install postgresql)')
    if (!hasRedis) throw new Error('skipped: redis-server not found (apt-get install redis-server)')
    const fixture = await loadClusterFixture()
    const postgres = await startPostgres(bin)
    const redis = await startRedisServer({ persistence: 'append-only' })
    try {
      const details: Record<string, number> = {}
      const parts: string[] = []
      for (const workers of WORKER_COUNTS) {
        const row = await measure({
          fixture,
          workers,
          runs: runsAt(size),
          databaseUrl: await postgres.createDatabase(),
          redisUrl: redis.url,
        })
        details[`runsPerSecond${workers}`] = row.perSecond
        details[`cpuMsPerRun${workers}`] = row.cpuMsPerRun
        details[`transactionsPerRun${workers}`] = row.transactionsPerRun
        details[`redisCommandsPerRun${workers}`] = row.redisCommandsPerRun
        details[`publishesPerRun${workers}`] = row.publishesPerRun
        parts.push(
          `${workers}: ${formatNumber(row.perSecond)} (${formatNumber(row.cpuMsPerRun)} ms CPU/run; ${formatNumber(row.transactionsPerRun)} transactions, ${formatNumber(row.redisCommandsPerRun)} Redis commands of which ${formatNumber(row.publishesPerRun)} publishes)`,
        )
      }
      return {
        value: details[`runsPerSecond${WORKER_COUNTS.at(-1)}`]!,
        text: `workers ${parts.join(', ')}`,
        details,
      }
    } finally {
      await redis.stop()
      await postgres.stop()
    }
  },
}
