import { readdirSync, readFileSync } from 'node:fs'

/**
 * The ids of `pid` and every process below it (children, grandchildren, ...), read from
 * `/proc`; `[]` where there is no `/proc` or `pid` is gone.
 *
 * @example
 * processTree(browserPid) // [4211, 4215, 4216, ...]: chromium and its helpers
 */
export function processTree(pid: number): number[] {
  const parents = parentsOfAll()
  if (!parents.has(pid)) return []
  const tree = [pid]
  for (let index = 0; index < tree.length; index += 1) {
    for (const [child, parent] of parents) if (parent === tree[index]) tree.push(child)
  }
  return tree
}

/**
 * The child of `parent` whose command line contains `marker` (an argument given only to it).
 *
 * @example
 * childWithArgument(process.pid, '--baton-browser=4f2a') // 4211
 */
export function childWithArgument(parent: number, marker: string): number | undefined {
  for (const [pid, ppid] of parentsOfAll()) {
    if (ppid !== parent) continue
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(marker)) return pid
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined
}

/**
 * The resident set size of each process, in bytes (0 for one that is gone).
 *
 * @example
 * residentBytes(processTree(pid)).reduce((a, b) => a + b, 0)
 */
export function residentBytes(pids: number[]): number[] {
  return pids.map((pid) => {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
      return match ? Number(match[1]) * 1024 : 0
    } catch {
      return 0
    }
  })
}

/**
 * The proportional set size of each process, in bytes (0 for one that is gone): its private
 * memory plus its share of pages it shares with others, so a sum over a process tree counts
 * a shared page once (a sum of RSS counts it in every process that maps it).
 *
 * @example
 * proportionalBytes(processTree(pid)).reduce((a, b) => a + b, 0)
 */
export function proportionalBytes(pids: number[]): number[] {
  return pids.map((pid) => {
    try {
      const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))
      return match ? Number(match[1]) * 1024 : 0
    } catch {
      return 0
    }
  })
}

/**
 * Whether a process is alive and not a zombie (an exited child its parent has not reaped).
 *
 * @example
 * isProcessAlive(4211) // false once chromium has exited
 */
export function isProcessAlive(pid: number): boolean {
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

function parentsOfAll(): Map<number, number> {
  const parents = new Map<number, number>()
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return parents
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      parents.set(Number(entry), Number(fields[1]))
    } catch {
      // Exited between the listing and the read.
    }
  }
  return parents
}
