import { type ChildProcess, spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export type ServerProcess = {
  /** e.g. `http://127.0.0.1:41234` */
  url: string
  /** Stops it with SIGTERM and waits until it has exited. */
  stop(): Promise<void>
}

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')

/**
 * Starts the real server (`src/main.ts`, as `pnpm start` does) as a child process on a free
 * port of 127.0.0.1 with the given data folder, and waits until it listens.
 */
export async function startServerProcess(options: {
  dataDir: string
  environment?: Record<string, string>
}): Promise<ServerProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@baton/source', 'src/main.ts'],
    {
      cwd: serverDir,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        BATON_DATA_DIR: options.dataDir,
        LOG_LEVEL: 'warn',
        ...options.environment,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const found = /listening on (http:\/\/\S+)/.exec(output)
      if (found?.[1]) resolve(found[1].replace('localhost', '127.0.0.1'))
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) =>
      reject(new Error(`the server exited (${code}) before listening:\n${output}`)),
    )
  })
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}
