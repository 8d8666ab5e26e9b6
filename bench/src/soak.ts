// A soak of the bench's own server process: one route loaded in consecutive windows, with the
// server's heap after a forced collection between them, so what grows with the hours (a cache
// without a bound, a timer that keeps what it closes over) shows in minutes. Not a row: its
// figures are read, not compared with a target.
//
//   pnpm --filter @baton/bench soak a2a --windows 8 --seconds 10
//
// Routes: a2a (SendMessage to the analyst), runs (POST /api/v1/runs of a one-step plan),
// messages (POST /api/v1/messages to the analyst, who answers).

import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { stopChild } from '@baton/testing/processes'
import autocannon from 'autocannon'
import { CHILD_NODE_FLAGS } from './measure/node-flags'
import { SEEDED_AGENT } from './servers/start-baton-server'

const json = { 'content-type': 'application/json' }
const routes: Record<string, { path: string; headers: Record<string, string>; body: string }> = {
  a2a: {
    path: '/a2a/analyst',
    headers: { ...json, 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: '[<id>]', role: 'ROLE_USER', parts: [{ text: 'Hi' }] } },
    }),
  },
  runs: {
    path: '/api/v1/runs',
    headers: json,
    body: JSON.stringify({
      plan: {
        name: 'soak',
        steps: [
          { op: 'delegate', saveAs: 'answer', agentWallet: SEEDED_AGENT.wallet, prompt: 'Hi' },
        ],
      },
    }),
  },
  messages: {
    path: '/api/v1/messages',
    headers: json,
    body: JSON.stringify({
      from: { agentId: 'person' },
      to: { agentId: 'analyst' },
      content: 'Hi',
    }),
  },
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    windows: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '10' },
  },
})
const route = routes[positionals[0] ?? 'a2a']
if (!route) throw new Error(`no route ${positionals[0]}; routes: ${Object.keys(routes).join(', ')}`)
const windows = Number(values.windows)
const seconds = Number(values.seconds)

const serve = fileURLToPath(new URL('./servers/serve.ts', import.meta.url))
const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, serve, 'baton'], {
  cwd: fileURLToPath(new URL('..', import.meta.url)),
  stdio: ['pipe', 'pipe', 'inherit'],
})
const lines = createInterface({ input: child.stdout! })
const waiting: ((line: Record<string, unknown>) => void)[] = []
lines.on('line', (line) => {
  if (line.startsWith('{')) waiting.shift()?.(JSON.parse(line))
})
const nextLine = () => new Promise<Record<string, unknown>>((resolve) => waiting.push(resolve))

/** The server process's CPU so far (user + system), ms. */
function serverCpuMs(): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

async function heapAfterCollection(): Promise<{ heapUsed: number; rss: number }> {
  const answer = nextLine()
  child.stdin!.write('memory\n')
  return (await answer).memory as { heapUsed: number; rss: number }
}

const mib = (bytes: number) => (bytes / 1048576).toFixed(1)
try {
  const started = (await nextLine()) as { listening?: string; failed?: string }
  if (!started.listening) throw new Error(`the server did not start: ${started.failed}`)
  const points: { requests: number; heapUsed: number }[] = []
  let requests = 0
  console.log(`soak of ${route.path}: ${windows} windows of ${seconds} s, 10 connections`)
  for (let window = 1; window <= windows; window += 1) {
    const cpuBefore = serverCpuMs()
    const result = await autocannon({
      url: `${started.listening}${route.path}`,
      connections: 10,
      duration: seconds,
      method: 'POST',
      headers: route.headers,
      body: route.body,
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            body: route.body.replaceAll('[<id>]', randomUUID()),
          }),
        },
      ],
    })
    const answered = result['2xx']
    if (answered === 0 || result.non2xx > 0 || result.errors > 0) {
      throw new Error(`${answered} answers 2xx, ${result.non2xx} not, ${result.errors} errors`)
    }
    requests += answered
    const cpuMs = serverCpuMs() - cpuBefore
    const { heapUsed, rss } = await heapAfterCollection()
    points.push({ requests, heapUsed })
    console.log(
      `window ${window}: ${answered} answered (${Math.round(result.requests.average)}/s, p99 ${result.latency.p99} ms), ${(cpuMs / answered).toFixed(2)} ms of server CPU each; after a collection: heap ${mib(heapUsed)} MiB, RSS ${mib(rss)} MiB`,
    )
  }
  // Past the first window (the server's caches filling, code compiling): what stays per request.
  const settled = points.slice(1)
  if (settled.length >= 2) {
    const first = settled[0]!
    const last = settled.at(-1)!
    const perRequest = (last.heapUsed - first.heapUsed) / (last.requests - first.requests)
    console.log(`heap kept per request after the first window: ${perRequest.toFixed(0)} bytes`)
  }
} finally {
  await stopChild(child, { ask: () => child.stdin?.end('stop\n'), graceMs: 60_000 })
}
