// Starts one server for a load test in a process of its own (so the load generator does not
// share its event loop), prints {"listening": url, "paths": {...}} and runs until killed.
import { startA2AReference } from './start-a2a-reference'
import { startBatonServer } from './start-baton-server'
import { startFastifyHello } from './start-fastify-hello'
import type { StartedServer } from './types'

const starters: Record<string, () => Promise<StartedServer>> = {
  'fastify-hello': startFastifyHello,
  'a2a-reference': startA2AReference,
  baton: startBatonServer,
}

const kind = process.argv[2] ?? ''
try {
  const start = starters[kind]
  if (!start) throw new Error(`no server ${kind}; servers: ${Object.keys(starters).join(', ')}`)
  const server = await start()
  process.stdout.write(
    `${JSON.stringify({ listening: server.url, paths: server.paths, model: server.model })}\n`,
  )
  const stop = async () => {
    await server.close().catch(() => {})
    process.exit(0)
  }
  process.once('SIGTERM', () => void stop())
  process.once('SIGINT', () => void stop())
} catch (error) {
  const message = error instanceof Error ? error.message : String(error)
  process.stdout.write(`${JSON.stringify({ failed: message.split('\n')[0] })}\n`)
  process.exit(1)
}
