import { parseJson } from './parse-baton-line'
import type { AdapterEvent, AgentAdapter } from './types'

/**
 * OpenAI Codex CLI (`codex exec --json -- <task>`). Each `turn.completed` is charged with its token
 * usage (Codex reports no price, so cost stays 0 unless a result says otherwise); the last
 * `agent_message` item is the report; `thread.started` gives the session to `resume`.
 *
 * @example
 * supervisor.delegate('Add a --verbose flag to the CLI', { agent: 'codex' })
 */
export const codexAdapter: AgentAdapter = {
  command: 'codex',
  // After `--`, so a task that reads like a flag stays the prompt.
  args: (task, _directory, context) =>
    context.sessionId
      ? ['exec', '--json', 'resume', '--', context.sessionId, task]
      : ['exec', '--json', '--skip-git-repo-check', '--', task],
  passEnv: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CODEX_HOME'],
  parse: parseCodexLine,
}

/**
 * Parses one line of `codex exec --json`.
 *
 * @example
 * parseCodexLine('{"type":"item.completed","item":{"type":"agent_message","text":"done"}}')
 * // [{ type: 'text', text: 'done' }]
 */
export function parseCodexLine(line: string): AdapterEvent[] {
  const json = parseJson(line)
  if (!json) return []
  switch (json.type) {
    case 'thread.started':
      return typeof json.thread_id === 'string'
        ? [{ type: 'session', sessionId: json.thread_id }]
        : []
    case 'item.completed': {
      const item = (json.item ?? {}) as { type?: unknown; text?: unknown }
      return item.type === 'agent_message' && typeof item.text === 'string'
        ? [{ type: 'text', text: item.text }]
        : []
    }
    case 'turn.completed': {
      const usage = (json.usage ?? {}) as Record<string, unknown>
      return [
        {
          type: 'usage',
          calls: 1,
          inputTokens: numberOr0(usage.input_tokens),
          outputTokens: numberOr0(usage.output_tokens),
        },
      ]
    }
    case 'turn.failed': {
      const error = (json.error ?? {}) as { message?: unknown }
      return [{ type: 'error', message: String(error.message ?? 'codex turn failed') }]
    }
    case 'error':
      return [{ type: 'error', message: String(json.message ?? 'codex failed') }]
    default:
      return []
  }
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0
}
