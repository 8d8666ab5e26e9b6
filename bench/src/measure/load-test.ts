import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { stopChild } from '@baton/testing/processes'
import autocannon, { type RequestParams } from 'autocannon'
import { CHILD_NODE_FLAGS } from './node-flags'

const benchDirectory = fileURLToPath(new URL('../..', import.meta.url))
const serve = fileURLToPath(new URL('../servers/serve.ts', import.meta.url))

export type LoadTestOptions = {
  /** Which server `servers/serve.ts` starts. */
  server: string
  /** Which of its paths is loaded. */
  path: string
  seconds: number
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  /** `[<id>]` in it becomes a fresh id per request. */
  body?: string
  /** Added to the server process's environment (e.g. `BATON_BENCH_DATABASE_URL`). */
  environment?: Record<string, string>
  /**
   * Seconds of the same load first, unmeasured and uncounted (its runs settled before the
   * count starts): a server is measured warm, its code compiled and its heap grown, as it
   * serves once it has been up a while; the in-process rows warm up the same way.
   */
  warmUpSeconds?: number
}

export type LoadTestResult = {
  requestsPerSecond: number
  latencyMs: number
  p99Ms: number
  /** 2xx answers: a load with any other is refused. */
  total: number
  model?: string
  /** The server's database statements per 2xx answer (Baton's servers only). */
  queriesPerRequest?: number
  /** Its transactions (explicit, or a write committed alone) per 2xx answer. */
  transactionsPerRequest?: number
  /** The server process's CPU (user + system) per 2xx answer, ms (Baton's servers only). */
  cpuMsPerRequest?: number
  /** What the server said when it stopped (counts, settled work). */
  stopped?: Record<string, unknown>
  /** Requests/s of the warm-up, the cold figure (with `warmUpSeconds`). */
  coldRequestsPerSecond?: number
}

/** One round of load on a started server: what autocannon measured, every answer a 2xx. */
export type LoadRound = {
  requestsPerSecond: number
  latencyMs: number
  p99Ms: number
  answers: number
}

/** A server started in its own process for load, until `stop`. */
export type LoadServer = {
  /** The warm-up's round, when the server was warmed up (`warmUpSeconds`). */
  cold?: LoadRound
  /** Loads the server's path for `seconds` (10 connections); refuses a round with a failure. */
  load(seconds: number): Promise<LoadRound>
  /** Stops the server; what it counted over every round (Baton's servers), per 2xx answer. */
  stop(): Promise<
    Pick<
      LoadTestResult,
      'queriesPerRequest' | 'transactionsPerRequest' | 'cpuMsPerRequest' | 'stopped' | 'model'
    >
  >
}

/**
 * Starts a server in its own process, loads one of its paths with autocannon (10 connections
 * on 127.0.0.1) for `seconds`, stops the server, and returns the mean requests/s. Refuses a
 * figure made of failures: every request must answer 2xx.
 *
 * @example
 * const { requestsPerSecond } = await loadTest({ server: 'fastify-hello', path: 'hello', seconds: 10 })
 */
export async function loadTest(options: LoadTestOptions): Promise<LoadTestResult> {
  const server = await startLoadServer(options)
  const round = await server.load(options.seconds).catch(async (error: unknown) => {
    await server.stop()
    throw error
  })
  const counted = await server.stop()
  return {
    ...counted,
    ...(server.cold ? { coldRequestsPerSecond: server.cold.requestsPerSecond } : {}),
    requestsPerSecond: round.requestsPerSecond,
    latencyMs: round.latencyMs,
    p99Ms: round.p99Ms,
    total: round.answers,
  }
}

/**
 * Starts `options.server` in a process of its own, warms it up with `options.warmUpSeconds`
 * of load when told to (then tells it to count from zero), and keeps it for rounds of load on
 * `options.path`, each round as long as it says.
 *
 * @example
 * const server = await startLoadServer({ server: 'baton', path: 'agent' })
 * const round = await server.load(2) // { requestsPerSecond, p99Ms, ... }
 * await server.stop()
 */
export async function startLoadServer(
  options: Omit<LoadTestOptions, 'seconds'>,
): Promise<LoadServer> {
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, serve, options.server], {
    cwd: benchDirectory,
    stdio: ['pipe', 'pipe', 'inherit'],
    ...(options.environment ? { env: { ...process.env, ...options.environment } } : {}),
  })
  // The server's last line, written when told to stop: its query counts.
  let stopped: Record<string, unknown> | undefined
  // Told once the server counts from zero after its warm-up.
  let warmed: (() => void) | undefined
  const lines = createInterface({ input: child.stdout })
  let started: {
    listening?: string
    paths?: Record<string, string>
    model?: string
    failed?: string
  }
  try {
    started = await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${options.server} did not start in 120 s`)),
        120_000,
      )
      lines.on('line', (line) => {
        if (!line.startsWith('{')) return
        const parsed = JSON.parse(line)
        if (parsed.counts) {
          stopped = parsed
          return
        }
        if (parsed.warmed) {
          warmed?.()
          return
        }
        clearTimeout(timer)
        resolve(parsed)
      })
      child.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`${options.server} exited with ${code} before listening`))
      })
    })
    if (!started.listening)
      throw new Error(`${options.server}: ${started.failed ?? 'did not start'}`)
  } catch (error) {
    await stop(child)
    throw error
  }
  const path = started.paths?.[options.path]
  if (!path) {
    await stop(child)
    throw new Error(`${options.server} has no ${options.path} path`)
  }
  const url = `${started.listening}${path}`
  let answers = 0
  const round = async (seconds: number): Promise<LoadRound> => {
    const result = await autocannon({
      url,
      connections: 10,
      duration: seconds,
      method: options.method ?? 'GET',
      ...(options.headers ? { headers: options.headers } : {}),
      // autocannon's own idReplacement leaves a stale Content-Length; a fresh body per request
      // through setupRequest does not.
      ...(options.body
        ? { body: options.body, requests: [{ setupRequest: withFreshId(options.body) }] }
        : {}),
    })
    if (result['2xx'] === 0 || result.non2xx > 0 || result.errors > 0) {
      throw new Error(
        `${options.server} ${path}: ${result['2xx']} answers 2xx, ${result.non2xx} not, ${result.errors} errors`,
      )
    }
    return {
      requestsPerSecond: result.requests.average,
      latencyMs: result.latency.average,
      p99Ms: result.latency.p99,
      answers: result['2xx'],
    }
  }
  let cold: LoadRound | undefined
  if (options.warmUpSeconds) {
    try {
      cold = await round(options.warmUpSeconds)
      // The server settles what the warm-up left (queued runs), then counts from zero.
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${options.server} did not settle its warm-up in 120 s`)),
          120_000,
        )
        warmed = () => {
          clearTimeout(timer)
          resolve()
        }
        child.stdin?.write('warmed\n')
      })
    } catch (error) {
      await stop(child)
      throw error
    }
  }
  return {
    ...(cold ? { cold } : {}),
    async load(seconds) {
      const measured = await round(seconds)
      answers += measured.answers
      return measured
    },

    async stop() {
      await stop(child)
      const counts = stopped?.counts as
        | { queries: number; transactions: number; cpuMs?: number }
        | undefined
      return {
        ...(counts && answers > 0
          ? {
              queriesPerRequest: counts.queries / answers,
              transactionsPerRequest: counts.transactions / answers,
            }
          : {}),
        ...(counts?.cpuMs !== undefined && answers > 0
          ? { cpuMsPerRequest: counts.cpuMs / answers }
          : {}),
        ...(stopped ? { stopped } : {}),
        ...(started.model ? { model: started.model } : {}),
      }
    },
  }
}

/** Tells the server to stop (it prints its counts first); one that hangs is killed. */
function stop(child: ReturnType<typeof spawn>): Promise<void> {
  // A server that does not stop within 60 s is killed: the figures are taken already (runs
  // left queued by the load settle first).
  return stopChild(child, { ask: () => child.stdin?.end('stop\n'), graceMs: 60_000 })
}

function withFreshId(body: string): (request: RequestParams) => RequestParams {
  return (request) => ({ ...request, body: body.replaceAll('[<id>]', randomUUID()) })
}
