import type { ChildProcess } from 'node:child_process'

/**
 * Stops a child process by its PID and resolves once it has exited: `signal` (default
 * SIGTERM) first, or `ask` where the child is asked another way (a `stop` line on its stdin),
 * and SIGKILL after `graceMs`. A child that already exited resolves at once.
 *
 * @example
 * await stopChild(server.child, { signal: 'SIGKILL' })
 */
export async function stopChild(
  child: ChildProcess,
  {
    signal = 'SIGTERM',
    graceMs = 10_000,
    ask,
  }: { signal?: NodeJS.Signals; graceMs?: number; ask?: () => void } = {},
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  if (ask) ask()
  else child.kill(signal)
  const killed = !ask && signal === 'SIGKILL'
  const timer = killed ? undefined : setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

/**
 * SIGKILLs every child that is still running (an `afterAll` of a test that started servers).
 *
 * @example
 * afterAll(() => killAll(servers.map((server) => server.child)))
 */
export function killAll(children: Iterable<ChildProcess | undefined>): void {
  for (const child of children) if (child && child.exitCode === null) child.kill('SIGKILL')
}
