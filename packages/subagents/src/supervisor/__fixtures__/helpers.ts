import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AgentAdapter } from '../../adapters/types'

/** A fresh directory under the OS temp dir, removed by the returned function. */
export async function makeTempRoot(): Promise<{ root: string; remove: () => Promise<void> }> {
  const root = await mkdtemp(path.join(tmpdir(), 'baton-subagents-'))
  return { root, remove: () => rm(root, { recursive: true, force: true }) }
}

/**
 * An offline-model tool directive. Brackets inside its JSON are written as `\u005b`/`\u005d`,
 * so a task for a sub-agent (with directives of its own) nests without being read early.
 * `args` must hold no arrays (their brackets would be escaped too).
 */
export function directive(tool: string, args: Record<string, unknown> = {}): string {
  const json = JSON.stringify(args).replace(/\[/g, '\\u005b').replace(/\]/g, '\\u005d')
  return `[[tool:${tool} ${json}]]`
}

export const STAND_IN_SCRIPT = fileURLToPath(
  new URL('../../adapters/__fixtures__/stand-in-agent.mjs', import.meta.url),
)

/** The stand-in CLI as a configured adapter: its task is JSON telling it what to do. */
export const standInAdapter: AgentAdapter = {
  command: process.execPath,
  args: (task) => [STAND_IN_SCRIPT, task],
  killGraceMs: 500,
}

/**
 * Whether a process is alive: `process.kill(pid, 0)` succeeds, and it is not a zombie. A helper
 * orphaned by a killed CLI is dead but stays a zombie until its new parent (init) reaps it,
 * which some container inits never do; `kill(pid, 0)` still succeeds on it.
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

/** Polls `check` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
