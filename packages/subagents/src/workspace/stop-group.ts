import type { ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'

/**
 * Stops a process started with `detached: true` and everything in its group: SIGTERM, then
 * SIGKILL after `graceMs`, and resolves once the group's processes are really gone (not only
 * signalled), so a caller can check by PID that nothing is left.
 *
 * @example
 * const child = spawn('Xvfb', args, { detached: true })
 * const exited = new Promise((resolve) => child.once('close', resolve))
 * await stopGroup(child, exited, 2000)
 */
export async function stopGroup(
  child: ChildProcess,
  exited: Promise<unknown>,
  graceMs: number,
): Promise<void> {
  if (child.pid === undefined) return
  const pid = child.pid
  signalGroup(pid, 'SIGTERM')
  let timer: ReturnType<typeof setTimeout> | undefined
  await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))])
  clearTimeout(timer)
  // Whatever it started may outlive it (or ignore SIGTERM): the whole group goes.
  signalGroup(pid, 'SIGKILL')
  await exited
  // SIGKILL is delivered, not yet done, when kill returns: a stop resolves once the group's
  // processes are really gone (a loaded machine may take a moment to run their exit).
  await groupGone(pid, 1000)
}

/**
 * Resolves once no live (non-zombie) process is left in group `pgid`, or after `timeoutMs`.
 *
 * @example
 * signalGroup(pid, 'SIGKILL'); await groupGone(pid, 1000)
 */
export async function groupGone(pgid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline && groupHasLiveMembers(pgid)) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

function groupHasLiveMembers(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
  } catch {
    return false
  }
  // Zombies (dead, waiting for a parent to reap them) keep the group alive for kill(0); on
  // Linux, look for a member that is not one. Elsewhere, trust kill(0).
  if (!existsSync('/proc/self/stat')) return true
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(group) === pgid && state !== 'Z') return true
    } catch {
      // Gone while we looked.
    }
  }
  return false
}

/**
 * Sends `signal` to process group `pid`; one that is gone already is not an error.
 *
 * @example
 * signalGroup(child.pid, 'SIGTERM')
 */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // Already gone.
  }
}
