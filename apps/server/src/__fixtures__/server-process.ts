import { type ChildProcess, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'

// The tsx loader itself, not its CLI: the CLI runs the server in a grandchild that a SIGKILL
// of the child would leave running.
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href
const mainFile = fileURLToPath(new URL('../main.ts', import.meta.url))

export type ServerProcess = {
  url: string
  child: ChildProcess
  output: () => string
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>
}

/**
 * Starts `main.ts` as a child process (as `pnpm start` does) and resolves once it prints
 * the URL it listens on.
 *
 * @example
 * const server = await startServerProcess({ BATON_DATA_DIR: dir, PORT: String(await freePort()) })
 */
export async function startServerProcess(
  environment: Record<string, string>,
  { timeoutMs = 120_000, cwd }: { timeoutMs?: number; cwd?: string } = {},
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    ['--import', tsxLoader, '--conditions=@baton/source', mainFile],
    {
      ...(cwd ? { cwd } : {}),
      env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout?.on('data', (chunk) => {
    output += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output += chunk
  })
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1))
  })
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the server did not start within ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout?.on('data', check)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`the server exited (${code}) before listening:\n${output}`))
    })
  })
  return { url, child, output: () => output, exited }
}

/**
 * Starts `main.ts` expecting it to fail before it listens; resolves with its exit code and
 * what it printed (a server that listens instead is killed and reported).
 *
 * @example
 * const { code, output } = await runServerToExit({ BATON_DATA_DIR: '/full/disk' })
 */
export async function runServerToExit(
  environment: Record<string, string>,
  { timeoutMs = 120_000 } = {},
): Promise<{ code: number | string; output: string }> {
  const child = spawn(
    process.execPath,
    ['--import', tsxLoader, '--conditions=@baton/source', mainFile],
    {
      env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  const collect = (chunk: Buffer) => {
    output += chunk
    if (/listening on http/.test(output)) child.kill('SIGKILL')
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const code = await new Promise<number | string>((resolve) => {
    child.once('exit', (exitCode, signal) => resolve(exitCode ?? signal ?? -1))
  })
  clearTimeout(timer)
  return { code, output }
}
