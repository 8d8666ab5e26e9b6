import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../..', import.meta.url))

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

export type ServerProcess = {
  baseUrl: string
  dataDir: string
  /** Starts the server (again) on the same port and data folder, with `env` added if given. */
  start(env?: Record<string, string>): Promise<void>
  /** Stops it and waits for the process to exit. */
  stop(): Promise<void>
  /** Stops it and removes the data folder. */
  dispose(): Promise<void>
  output(): string
}

/**
 * The real Baton server (`apps/server/src/main.ts` under tsx) on 127.0.0.1, a free port and
 * a fresh data folder, serving the playground build in `playgroundDir`.
 */
export async function startServerProcess(options: {
  playgroundDir: string
  /** More environment for the server (e.g. `BATON_RUNTIME_KEY`). */
  env?: Record<string, string>
}): Promise<ServerProcess> {
  const port = await freePort()
  const dataDir = await mkdtemp(join(tmpdir(), 'baton-playground-e2e-'))
  const baseUrl = `http://127.0.0.1:${port}`
  let child: ChildProcess | undefined
  let log = ''

  const start = async (env: Record<string, string> = {}) => {
    child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@baton/source', 'apps/server/src/main.ts'],
      {
        cwd: root,
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          BATON_DATA_DIR: dataDir,
          BATON_PLAYGROUND_DIR: options.playgroundDir,
          LOG_LEVEL: 'warn',
          BATON_API_TOKEN: '',
          ...options.env,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    child.stdout?.on('data', (chunk) => {
      log += chunk
    })
    child.stderr?.on('data', (chunk) => {
      log += chunk
    })
    const exited = new Promise<never>((_, reject) =>
      child!.once('exit', (code) => reject(new Error(`the server exited (${code}):\n${log}`))),
    )
    const started = Date.now()
    while (Date.now() - started < 180_000) {
      const ready = await Promise.race([
        fetch(`${baseUrl}/health`).then(
          (response) => response.ok,
          () => false,
        ),
        exited,
      ])
      if (ready) return
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    throw new Error(`the server did not answer within 180 s:\n${log}`)
  }

  const stop = async () => {
    const running = child
    child = undefined
    if (!running || running.exitCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill('SIGTERM')
    const timer = setTimeout(() => running.kill('SIGKILL'), 10_000)
    await exited
    clearTimeout(timer)
  }

  await start()
  return {
    baseUrl,
    dataDir,
    start,
    stop,
    async dispose() {
      await stop()
      await rm(dataDir, { recursive: true, force: true })
    },
    output: () => log,
  }
}
