import { execFileSync } from 'node:child_process'
import { cpus, totalmem } from 'node:os'

export type Machine = {
  cpus: number
  cpuModel: string
  memoryGiB: number
  node: string
  commit: string
}

/**
 * What the figures were measured on, and at which commit.
 *
 * @example
 * describeMachine() // { cpus: 2, cpuModel: 'AMD EPYC', memoryGiB: 8, node: 'v20.20.2', commit: '33cfbcf…' }
 */
export function describeMachine(): Machine {
  let commit = 'unknown'
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim()
  } catch {
    // Not a git checkout (a packed copy): the figures still stand, without a commit.
  }
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    commit,
  }
}
