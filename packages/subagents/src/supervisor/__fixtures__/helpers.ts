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
