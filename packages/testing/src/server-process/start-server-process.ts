import { type ChildProcess, spawn } from 'node:child_process'
import { fromSourceArgs } from '../processes/from-source-args'
import { stopChild } from '../processes/stop-child'

/** What starts a server: its entry file, where, and with what environment. */
export type ServerEntryOptions = {
  /**
   * The server's entry file. A `.ts` entry runs from source (the tsx loader of the entry's own
   * package, with the `@baton/source` condition, so sibling packages are read from source too);
   * any other entry runs with plain `node`.
   */
  entry: string
  /** Arguments after the entry. */
  args?: string[]
  /** Added to this process's environment (after `HOST=127.0.0.1` and `LOG_LEVEL=warn`). */
  environment?: Record<string, string>
  cwd?: string
  /** How long it may take to listen (or, for `runServerToExit`, to exit). */
  timeoutMs?: number
  /** The line that says it listens; its first group is the URL (default: `listening on http://…`). */
  listening?: RegExp
}

export type ServerProcess = {
  /** The URL from its `listening on http://…` line (or the `listening` option's group). */
  url: string
  child: ChildProcess
  /** All it printed so far, stdout and stderr. */
  output(): string
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>
  /** Stops it (SIGTERM, SIGKILL after a grace period; see `stopChild`) and waits for its exit. */
  stop(options?: { signal?: NodeJS.Signals; graceMs?: number }): Promise<void>
}

const listeningOn = /listening on (http:\/\/\S+)/

/**
 * Starts a server's entry file as a child process of its own (as `pnpm start` does) and
 * resolves once it prints the URL it listens on; a server that exits first, or does not
 * listen within `timeoutMs`, rejects with what it printed.
 *
 * @example
 * const server = await startServerProcess({ entry, environment: { PORT: '0' } })
 * await fetch(`${server.url}/health`)
 * await server.stop()
 */
export async function startServerProcess(options: ServerEntryOptions): Promise<ServerProcess> {
  const { child, output, exited } = spawnServer(options)
  const timeoutMs = options.timeoutMs ?? 120_000
  const listening = options.listening ?? listeningOn
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the server did not start within ${timeoutMs} ms:\n${output()}`))
    }, timeoutMs)
    const check = () => {
      const match = listening.exec(output())
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout?.on('data', check)
    child.stderr?.on('data', check)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`the server exited (${code}) before listening:\n${output()}`))
    })
  })
  return { url, child, output, exited, stop: (stopOptions) => stopChild(child, stopOptions) }
}

/**
 * Starts a server's entry file expecting it to fail before it listens; resolves with its exit
 * code and what it printed (a server that listens instead is killed and reported).
 *
 * @example
 * const { code, output } = await runServerToExit({ entry, environment: { BATON_DATA_DIR: '/full/disk' } })
 */
export async function runServerToExit(
  options: ServerEntryOptions,
): Promise<{ code: number | string; output: string }> {
  const { child, output, exited } = spawnServer(options)
  const killIfListening = () => {
    if ((options.listening ?? listeningOn).test(output())) child.kill('SIGKILL')
  }
  child.stdout?.on('data', killIfListening)
  child.stderr?.on('data', killIfListening)
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000)
  const code = await exited
  clearTimeout(timer)
  return { code, output: output() }
}

function spawnServer({ entry, args = [], environment, cwd }: ServerEntryOptions) {
  const child = spawn(process.execPath, [...fromSourceArgs(entry), entry, ...args], {
    ...(cwd ? { cwd } : {}),
    env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let printed = ''
  const collect = (chunk: Buffer) => {
    printed += chunk
  }
  // Collected before any other listener reads `output()`.
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1))
  })
  return { child, exited, output: () => printed }
}
