// Starts one server for a load test in a process of its own (so the load generator does not
// share its event loop), prints {"listening": url, "paths": {...}} and runs until told to stop.

import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startCpuProfile } from '../measure/cpu-profile'
import { installQueryCounter, type QueryCounter, type QueryCounts } from './count-queries'
import { longStreamModel } from './long-stream-model'
import { startA2AReference } from './start-a2a-reference'
import { startBatonServer } from './start-baton-server'
import { startFastifyHello } from './start-fastify-hello'
import type { StartedServer } from './types'

const starters: Record<string, () => Promise<StartedServer>> = {
  'fastify-hello': startFastifyHello,
  'a2a-reference': startA2AReference,
  baton: startBatonServer,
  // The stream row's server: `offline:stream` answers with BATON_BENCH_STREAM_CHUNKS deltas.
  'baton-stream': () =>
    startBatonServer({
      models: {
        'offline:stream': longStreamModel(Number(process.env.BATON_BENCH_STREAM_CHUNKS ?? 2_000)),
      },
    }),
}

const kind = process.argv[2] ?? ''
try {
  const start = starters[kind]
  if (!start) throw new Error(`no server ${kind}; servers: ${Object.keys(starters).join(', ')}`)
  // Baton's servers count their database queries; the others have none.
  const counter: QueryCounter | undefined = kind.startsWith('baton')
    ? await installQueryCounter(fileURLToPath(new URL('../../../apps/server/', import.meta.url)))
    : undefined
  const server = await start()
  counter?.reset()
  // The process's CPU from here to the stop (user + system): the cost of the load's work,
  // steadier than requests/s on a machine that is shared.
  let cpuAtStart = process.cpuUsage()
  // With --profile, the server profiles what it does under load, not its start.
  const profileDirectory = process.env.BATON_BENCH_PROFILE_DIR
  let stopProfile = profileDirectory ? await startCpuProfile() : undefined
  // Runs the warm-up left, settled before the count starts, and not counted as the load's.
  let warmUpRuns = 0
  // The load test's warm-up is over: what it left settles, then everything counts from zero
  // (queries, CPU, runs, the profile).
  const warmed = async () => {
    const settled = counter && server.settle ? await server.settle(counter) : undefined
    warmUpRuns = settled?.runs ?? 0
    counter?.reset()
    if (stopProfile) {
      await stopProfile.discard()
      stopProfile = await startCpuProfile()
    }
    cpuAtStart = process.cpuUsage()
    process.stdout.write(`${JSON.stringify({ warmed: { runs: warmUpRuns } })}\n`)
  }
  process.stdout.write(
    `${JSON.stringify({ listening: server.url, paths: server.paths, model: server.model })}\n`,
  )
  let stopping = false
  const stop = async () => {
    // "stop", the end of stdin and a signal may all come; the first one stops the server.
    if (stopping) return
    stopping = true
    // Work the load left queued (runs) is the load's too: counted once it has settled.
    const settled = counter && server.settle ? await server.settle(counter) : undefined
    if (settled?.runs !== undefined) settled.runs -= warmUpRuns
    if (counter) {
      const counts: QueryCounts & { cpuMs?: number } = counter.read()
      counts.queries -= settled?.ownQueries ?? 0
      const cpu = process.cpuUsage(cpuAtStart)
      counts.cpuMs = (cpu.user + cpu.system) / 1000
      process.stdout.write(`${JSON.stringify({ counts, ...(settled ? { settled } : {}) })}\n`)
    }
    await stopProfile?.(path.join(profileDirectory!, 'server'), kind)
    await server.close().catch(() => {})
    process.exit(0)
  }
  // The load test says "stop" on stdin (a signal would not let the profile be written first);
  // a parent that goes away closes stdin, which stops the server as well.
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (text: string) => {
    if (text.includes('stop')) void stop()
    if (text.includes('warmed')) void warmed()
    // The memory row: "seed N" registers N more agents, "memory" answers the settled usage.
    const seed = /seed (\d+)/.exec(text)
    if (seed && server.seedAgents) {
      void server.seedAgents(Number(seed[1])).then((seeded) => {
        process.stdout.write(`${JSON.stringify({ seeded })}\n`)
      })
    }
    if (text.includes('memory')) {
      globalThis.gc?.()
      const usage = process.memoryUsage()
      process.stdout.write(`${JSON.stringify({ memory: usage })}\n`)
    }
  })
  process.stdin.on('end', () => void stop())
  process.once('SIGTERM', () => void stop())
} catch (error) {
  const message = error instanceof Error ? error.message : String(error)
  process.stdout.write(`${JSON.stringify({ failed: message.split('\n')[0] })}\n`)
  process.exit(1)
}
