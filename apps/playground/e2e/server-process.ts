import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '@baton/testing/ports'
import {
  type ServerProcess as RunningServer,
  startServerProcess as startEntry,
} from '@baton/testing/server-process'

/** The Baton server's entry, run from source. */
const serverEntry = fileURLToPath(new URL('../../server/src/main.ts', import.meta.url))

export type ServerProcess = {
  baseUrl: string
  dataDir: string
  /** Starts the server (again) on the same port and data folder, with `env` added if given. */
  start(env?: Record<string, string>): Promise<void>
  /** Stops it and waits for the process to exit. */
  stop(): Promise<void>
  /** Stops it and removes the data folder. */
  dispose(): Promise<void>
}

/**
 * The real Baton server (`apps/server/src/main.ts`) on 127.0.0.1, a free port and a fresh
 * data folder, serving the playground build in `playgroundDir`; it can be stopped and started
 * again on the same port and data folder (what the browser sees of a restart).
 *
 * @example
 * const server = await startServerProcess({ playgroundDir: inject('playgroundDir') })
 * await page.goto(`${server.baseUrl}/#/agents`)
 */
export async function startServerProcess(options: {
  playgroundDir: string
  /** More environment for the server (e.g. `BATON_RUNTIME_KEY`). */
  env?: Record<string, string>
}): Promise<ServerProcess> {
  const port = await freePort()
  const dataDir = await mkdtemp(join(tmpdir(), 'baton-playground-e2e-'))
  let running: RunningServer | undefined

  const start = async (env: Record<string, string> = {}) => {
    running = await startEntry({
      entry: serverEntry,
      environment: {
        PORT: String(port),
        BATON_DATA_DIR: dataDir,
        BATON_PLAYGROUND_DIR: options.playgroundDir,
        BATON_API_TOKEN: '',
        BATON_CHECK_RESPONSES: 'true',
        ...options.env,
        ...env,
      },
      timeoutMs: 180_000,
    })
  }

  const stop = async () => {
    const stopping = running
    running = undefined
    if (!stopping) return
    await stopping.stop()
  }

  await start()
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir,
    start,
    stop,
    async dispose() {
      await stop()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
