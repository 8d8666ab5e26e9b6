import { readFileSync } from 'node:fs'

/**
 * Whether a process is alive: `process.kill(pid, 0)` succeeds, and it is not a zombie. A helper
 * orphaned by a killed CLI is dead but stays a zombie until its new parent (init) reaps it,
 * which some container inits never do; `kill(pid, 0)` still succeeds on it.
 *
 * @example
 * await waitFor(() => (isAlive(pid) ? undefined : true), { what: 'the helper to exit' })
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true
  }
}
