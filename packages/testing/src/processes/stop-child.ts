import type { ChildProcess } from 'node:child_process'

/**
 * Stops a child process by its PID and resolves once it has exited: `signal` (default
 * SIGTERM) first, SIGKILL after `graceMs`. A child that already exited resolves at once.
 *
 * @example
 * await stopChild(server.child, { signal: 'SIGKILL' })
 */
export async function stopChild(
  child: ChildProcess,
  { signal = 'SIGTERM', graceMs = 10_000 }: { signal?: NodeJS.Signals; graceMs?: number } = {},
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill(signal)
  const timer = signal === 'SIGKILL' ? undefined : setTimeout(() => child.kill('SIGKILL'), graceMs)
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
