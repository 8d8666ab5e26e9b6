import { parseJson } from './parse-baton-line'
import type { AdapterEvent, AgentAdapter } from './types'

/**
 * Claude Code in print mode (`claude -p --output-format stream-json --verbose -- <task>`). Each
 * `assistant` message's usage is charged as one call; the `result` line carries the report
 * and `total_cost_usd`; `session_id` lets a multi-turn sub-agent `--resume`.
 *
 * @example
 * createSupervisor({ agent, workspace, budget }).delegate('Fix the failing test', {
 *   agent: 'claude-code',
 * })
 */
export const claudeCodeAdapter: AgentAdapter = {
  command: 'claude',
  // The prompt after `--`, so a task that reads like a flag stays the prompt.
  args: (task, _directory, context) => [
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    ...(context.sessionId ? ['--resume', context.sessionId] : []),
    '--',
    task,
  ],
  passEnv: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'CLAUDE_CONFIG_DIR'],
  parse: parseClaudeCodeLine,
}

/**
 * Parses one line of `claude -p --output-format stream-json`.
 *
 * @example
 * parseClaudeCodeLine('{"type":"result","result":"done","total_cost_usd":0.02}')
 * // [{ type: 'result', text: 'done', costUsd: 0.02 }]
 */
export function parseClaudeCodeLine(line: string): AdapterEvent[] {
  const json = parseJson(line)
  if (!json) return []
  const sessionId = typeof json.session_id === 'string' ? json.session_id : undefined
  if (json.type === 'system' && sessionId) return [{ type: 'session', sessionId }]
  if (json.type === 'assistant') {
    const message = (json.message ?? {}) as { content?: unknown; usage?: Record<string, unknown> }
    const events: AdapterEvent[] = []
    const usage = message.usage ?? {}
    events.push({
      type: 'usage',
      calls: 1,
      inputTokens: numberOr0(usage.input_tokens),
      outputTokens: numberOr0(usage.output_tokens),
    })
    const text = Array.isArray(message.content)
      ? message.content
          .filter((part): part is { type: 'text'; text: string } => part?.type === 'text')
          .map((part) => part.text)
          .join('')
      : ''
    if (text) events.push({ type: 'text', text })
    return events
  }
  if (json.type === 'result') {
    const text = typeof json.result === 'string' ? json.result : ''
    if (
      json.is_error === true ||
      (typeof json.subtype === 'string' && json.subtype.startsWith('error'))
    ) {
      return [{ type: 'error', message: text || `claude ended with ${String(json.subtype)}` }]
    }
    const costUsd = typeof json.total_cost_usd === 'number' ? json.total_cost_usd : undefined
    return [
      {
        type: 'result',
        text,
        ...(costUsd === undefined ? {} : { costUsd }),
        ...(sessionId ? { sessionId } : {}),
      },
    ]
  }
  return []
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0
}
