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
// Requests in flight at once per process, spread round-robin: each worker added brings its own
// load, as workers are added when the load grows. What a run costs depends on how many runs
// share each turn of a process (one statement of the group commit, one pipelined write to
// Redis, one wake of the event loop): one worker, warm, with 5 runs in flight 2.94–3.09 ms of
// CPU per run, with 16 in flight 2.02–2.13. The same 16 spread over 3 workers (5 each) measured
// that batching, not what a worker added costs.
const inFlightPerProcess = 16
// Runs each process serves before the clock. V8 compiles a server process's hot path over its
// first few thousand runs (it optimises functions as they get hot, on helper threads whose CPU
// the process's figure counts): one worker, in windows of 1 000 runs after 150, printed 3.88,
// 3.25, 2.67, 2.52, 2.41, 2.04, 1.94 ms of CPU per run while V8 finished optimising 300, 192,
// 93, 54, 45, 22, 22 functions per window (`--trace-opt`), with the same ~30 scavenges each.
// A server's runs cost what they cost once it is warm; what the first ones cost is printed
// beside it (`warming`), not hidden.
const warmRunsPerProcess = 5_000
// Windows of measured runs per worker count.
const measuredWindows = 3
async function total(url: string, status: string): Promise<number> {
  const response = await fetch(`${url}/api/v1/runs?status=${status}&limit=1`)
  return ((await response.json()) as { total: number }).total
}

/**
 * Starts `runs` one-step runs through `processes` and waits until every one has ended:
 * until the database holds `runs + before` done, `before` being those done before them.
 */
async function runThrough(
  processes: ClusterProcess[],
  runs: number,
  before = 0,
  inFlight = inFlightPerProcess * processes.length,
): Promise<void> {
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
    const warmingCpuBefore = processTreeCpuMs(pids)
    await runThrough(processes, warm)
    const warmingCpuMsPerRun = (processTreeCpuMs(pids) - warmingCpuBefore) / warm
    if (profileDirectory) {
      await mkdir(profileDirectory, { recursive: true })
      for (const pid of pids) process.kill(pid, 'SIGUSR2')
    }
    const countsBefore = await readBackendCounts(options.databaseUrl, options.redisUrl)
    // A few windows, the median one kept: a window in which a major collection or a late
    // optimisation falls differs from the next by up to a third.
    const windows: { perSecond: number; cpuMsPerRun: number }[] = []
    for (let index = 0; index < measuredWindows; index += 1) {
      const cpuBefore = processTreeCpuMs(pids)
      const begin = performance.now()
      await runThrough(processes, options.runs, warm + index * options.runs)
      const seconds = (performance.now() - begin) / 1000
      const cpuMs = processTreeCpuMs(pids) - cpuBefore
      windows.push({ perSecond: options.runs / seconds, cpuMsPerRun: cpuMs / options.runs })
    }
    const countsAfter = await readBackendCounts(options.databaseUrl, options.redisUrl)
    const perRun = (key: keyof BackendCounts) =>
      (countsAfter[key] - countsBefore[key]) / (options.runs * measuredWindows)
    // One window more with one worker's load shared by all: what thinner batches cost.
    let sharedLoadCpuMsPerRun: number | undefined
    if (processes.length > 1) {
      const cpuBefore = processTreeCpuMs(pids)
      const before = warm + measuredWindows * options.runs
      await runThrough(processes, options.runs, before, inFlightPerProcess)
      sharedLoadCpuMsPerRun = (processTreeCpuMs(pids) - cpuBefore) / options.runs
    }
    const byCpu = windows.toSorted((a, b) => a.cpuMsPerRun - b.cpuMsPerRun)
    const median = byCpu[Math.floor(byCpu.length / 2)]!
    return {
      perSecond: median.perSecond,
      cpuMsPerRun: median.cpuMsPerRun,
      cpuMsPerRunRange: [byCpu[0]!.cpuMsPerRun, byCpu.at(-1)!.cpuMsPerRun] as const,
      warmingCpuMsPerRun,
      sharedLoadCpuMsPerRun,
      transactionsPerRun: perRun('transactions'),
      redisCommandsPerRun: perRun('redisCommands'),
      publishesPerRun: perRun('publishes'),
      redisCpuMsPerRun: perRun('redisCpuMs'),
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

const runsAt = (size: Size) => (size === 'full' ? 1_000 : 0)

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
        details[`warmingCpuMsPerRun${workers}`] = row.warmingCpuMsPerRun
        if (row.sharedLoadCpuMsPerRun !== undefined) {
          details[`sharedLoadCpuMsPerRun${workers}`] = row.sharedLoadCpuMsPerRun
        }
        const shared =
          row.sharedLoadCpuMsPerRun === undefined
            ? ''
            : `, ${formatNumber(row.sharedLoadCpuMsPerRun)} with ${inFlightPerProcess} in flight in all`
        details[`transactionsPerRun${workers}`] = row.transactionsPerRun
        details[`redisCommandsPerRun${workers}`] = row.redisCommandsPerRun
        details[`publishesPerRun${workers}`] = row.publishesPerRun
        details[`redisCpuMsPerRun${workers}`] = row.redisCpuMsPerRun
        parts.push(
          `${workers}: ${formatNumber(row.perSecond)} (${formatNumber(row.cpuMsPerRun)} ms CPU/run [${formatNumber(row.cpuMsPerRunRange[0])}–${formatNumber(row.cpuMsPerRunRange[1])}], ${formatNumber(row.warmingCpuMsPerRun)} while warming${shared}; ${formatNumber(row.transactionsPerRun)} transactions, ${formatNumber(row.redisCommandsPerRun)} Redis commands of which ${formatNumber(row.publishesPerRun)} publishes, ${formatNumber(row.redisCpuMsPerRun * 1000)} µs of Redis CPU)`,
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
