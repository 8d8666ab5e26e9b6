import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { stopChild } from '@baton/testing/processes'
import { CHILD_NODE_FLAGS } from './node-flags'

const benchDirectory = fileURLToPath(new URL('../..', import.meta.url))
const serve = fileURLToPath(new URL('../servers/serve.ts', import.meta.url))

export type ServerProcess = {
  url: string
  paths: Record<string, string>
  /** Sends a command line (`memory`, `seed 100`) to the server. */
  send(command: string): void
  /** The next line the server prints that has `key`. */
  next<T>(key: string, timeoutMs?: number): Promise<T>
  /** The process's resident set now, MiB (from /proc). */
  rssMiB(): Promise<number>
  stop(): Promise<void>
}

/**
 * Starts `servers/serve.ts <kind>` in a process of its own (`env` added to this one's) and talks to it over its stdin and
 * stdout, one JSON line at a time.
 *
 * @example
 * const server = await startServerProcess('baton')
 * server.send('memory'); const { memory } = await server.next('memory')
 */
export async function startServerProcess(
  kind: string,
  options: { env?: Record<string, string> } = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, serve, kind], {
    cwd: benchDirectory,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const waiting: { key: string; resolve(value: never): void }[] = []
  const lines = createInterface({ input: child.stdout })
  lines.on('line', (line) => {
    if (!line.startsWith('{')) return
    const parsed = JSON.parse(line) as Record<string, unknown>
    const index = waiting.findIndex((entry) => entry.key in parsed)
    if (index >= 0) waiting.splice(index, 1)[0]!.resolve(parsed as never)
  })
  const next = <T>(key: string, timeoutMs = 120_000) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${kind}: no "${key}" in time`)), timeoutMs)
      waiting.push({
        key,
        resolve: (value) => {
          clearTimeout(timer)
          resolve(value)
        },
      })
      child.once('exit', (code) => reject(new Error(`${kind} exited with ${code}`)))
    })
  const started = await next<{ listening?: string; paths?: Record<string, string> }>(
    'listening',
    90_000,
  ).catch(async (error) => {
    child.kill('SIGKILL')
    throw error
  })
  return {
    url: started.listening!,
    paths: started.paths ?? {},
    send: (command) => child.stdin.write(`${command}\n`),
    next,
    async rssMiB() {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8')
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
    },
    stop: () => stopChild(child, { ask: () => child.stdin.end('stop\n'), graceMs: 60_000 }),
  }
}
