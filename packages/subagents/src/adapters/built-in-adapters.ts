import { claudeCodeAdapter } from './claude-code-adapter'
import { codexAdapter } from './codex-adapter'
import type { AgentAdapter } from './types'

/** The external agents every supervisor knows: `claude-code` and `codex`. */
export const builtInAdapters: Readonly<Record<string, AgentAdapter>> = Object.freeze({
  'claude-code': claudeCodeAdapter,
  codex: codexAdapter,
})
