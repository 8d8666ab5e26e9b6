import { BatonError } from '@baton/core'
import { buildApp } from './app'
import { routeConsoleToLogger } from './console-to-logger'
import { pgliteFolderOf } from './db/open-database'
import { listenFailureOf } from './listen-failure'
import { seedDemo } from './seed/seed-demo'
import { readSettings } from './settings'
import { startMessage } from './start-message'
import { startTelemetry, type Telemetry } from './telemetry/start-telemetry'

/** Reads the settings, builds the app, seeds the demo, listens, and stops cleanly on a signal. */
async function main(): Promise<void> {
  let settings: ReturnType<typeof readSettings>
  try {
    settings = readSettings(process.env)
  } catch (error) {
    console.error(BatonError.isInstance(error) ? error.message : error)
    process.exit(1)
  }
  let app: Awaited<ReturnType<typeof buildApp>>
  let seeded: Awaited<ReturnType<typeof seedDemo>> | undefined
  let address: string
  let telemetry: Telemetry | undefined
  try {
    // Before the app: fastify's instrumentation hooks into apps built after it starts.
    telemetry = await startTelemetry(process.env)
    app = await buildApp({ settings })
    // Libraries that take no logger (the A2A SDK) write to the console: into the log, as JSON.
    routeConsoleToLogger(app.log)
    seeded = settings.seed ? await seedDemo(app.baton) : undefined
    address = await app.listen({ port: settings.port, host: settings.host })
  } catch (error) {
    // One line an operator can act on (which folder, what is wrong with it), not a stack.
    process.stderr.write(`Baton server could not start: ${startupMessage(error)}\n`)
    process.exit(1)
  }
  const url = address.replace('[::1]', 'localhost')
  const lines = startMessage({
    url,
    role: settings.role,
    dataDir: settings.dataDir,
    database: settings.databaseUrl
      ? { kind: 'postgres', location: 'DATABASE_URL' }
      : {
          kind: 'pglite',
          location:
            settings.dataDir === 'memory://' ? 'memory://' : pgliteFolderOf(settings.dataDir),
        },
    ...(seeded ? { seeded } : {}),
  })
  // One write, so a reader that waits for the first line has them all (not the console: it
  // goes to the log now, and this is for the person who started the server).
  process.stdout.write(`${lines.join('\n')}\n`)

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'shutting down')
    try {
      // Stops taking requests, lets runs reach their next step (10 s at most), closes the db.
      await app.close()
      // The last spans (the shutdown's own) are exported before the process ends.
      await telemetry?.shutdown().catch(() => undefined)
      process.exit(0)
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed')
      process.exit(1)
    }
  }
  process.once('SIGTERM', () => void stop('SIGTERM'))
  process.once('SIGINT', () => void stop('SIGINT'))
}

/**
 * The first line of what went wrong: a Baton error's own message, else the error's. A database
 * fault's says which database (its URL without credentials): a client is never told where the
 * database is, but the person starting the server is asking exactly that.
 */
function startupMessage(error: unknown): string {
  if (BatonError.isInstance(error)) {
    const { location } = error as { location?: unknown }
    return typeof location === 'string'
      ? `${error.shortMessage.replace(/\.$/, '')} (${location}).`
      : error.shortMessage
  }
  const listening = listenFailureOf(error)
  if (listening) return listening
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0] ?? message
}

await main()
