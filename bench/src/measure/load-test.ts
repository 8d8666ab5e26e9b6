import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
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
}

export type LoadTestResult = {
  requestsPerSecond: number
  latencyMs: number
  errors: number
  non2xx: number
  total: number
  model?: string
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
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, serve, options.server], {
    cwd: benchDirectory,
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  try {
    const started = await new Promise<{
      listening?: string
      paths?: Record<string, string>
      model?: string
      failed?: string
    }>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${options.server} did not start in 60 s`)),
        60_000,
      )
      const lines = createInterface({ input: child.stdout })
      lines.on('line', (line) => {
        if (!line.startsWith('{')) return
        clearTimeout(timer)
        resolve(JSON.parse(line))
      })
      child.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`${options.server} exited with ${code} before listening`))
      })
    })
    if (!started.listening)
      throw new Error(`${options.server}: ${started.failed ?? 'did not start'}`)
    const path = started.paths?.[options.path]
    if (!path) throw new Error(`${options.server} has no ${options.path} path`)
    const result = await autocannon({
      url: `${started.listening}${path}`,
      connections: 10,
      duration: options.seconds,
      method: options.method ?? 'GET',
      ...(options.headers ? { headers: options.headers } : {}),
      // autocannon's own idReplacement leaves a stale Content-Length; a fresh body per request
      // through setupRequest does not.
      ...(options.body
        ? { body: options.body, requests: [{ setupRequest: withFreshId(options.body) }] }
        : {}),
    })
    const total = result['2xx'] + result.non2xx
    if (result['2xx'] === 0 || result.non2xx > 0 || result.errors > 0) {
      throw new Error(
        `${options.server} ${path}: ${result['2xx']} answers 2xx, ${result.non2xx} not, ${result.errors} errors`,
      )
    }
    return {
      requestsPerSecond: result.requests.average,
      latencyMs: result.latency.average,
      errors: result.errors,
      non2xx: result.non2xx,
      total,
      ...(started.model ? { model: started.model } : {}),
    }
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.stdin.end('stop\n')
      // A server that does not stop within 10 s is killed: the figures are taken already.
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    }
  }
}

function withFreshId(body: string): (request: RequestParams) => RequestParams {
  return (request) => ({ ...request, body: body.replaceAll('[<id>]', randomUUID()) })
}
