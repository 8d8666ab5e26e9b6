import { readdirSync, readFileSync } from 'node:fs'

// The kernel counts CPU time in clock ticks (`getconf CLK_TCK`: 100 on Linux).
const ticksPerSecond = 100

/** utime + stime of one process, ms; undefined once it is gone. */
function cpuOf(pid: number): { ms: number; parent: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces: the fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const parent = Number(fields[1])
    const ticks = Number(fields[11]) + Number(fields[12])
    return { ms: (ticks * 1000) / ticksPerSecond, parent }
  } catch {
    return undefined
  }
}

/**
 * CPU milliseconds used so far by the processes `pids` and every process below them (by the
 * parent PID of `/proc/<pid>/stat`), from the kernel's own counters.
 *
 * @example
 * const before = processTreeCpuMs([server.child.pid!])
 */
export function processTreeCpuMs(pids: number[]): number {
  const all = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
  const parents = new Map<number, number>()
  const cpu = new Map<number, number>()
  for (const pid of all) {
    const one = cpuOf(pid)
    if (!one) continue
    parents.set(pid, one.parent)
    cpu.set(pid, one.ms)
  }
  const roots = new Set(pids)
  const within = (pid: number): boolean => {
    for (let at: number | undefined = pid; at !== undefined && at > 1; at = parents.get(at)) {
      if (roots.has(at)) return true
    }
    return false
  }
  let total = 0
  for (const [pid, ms] of cpu) if (within(pid)) total += ms
  return total
}
