import { describe, expect, it } from 'vitest'
import { parseClaudeCodeLine } from './claude-code-adapter'
import { parseCodexLine } from './codex-adapter'
import { parseBatonLine } from './parse-baton-line'

describe('parseBatonLine', () => {
  it('reads the events of the format and ignores anything else', () => {
    expect(parseBatonLine('{"type":"usage","inputTokens":3,"costUsd":0.1}')).toEqual({
      type: 'usage',
      inputTokens: 3,
      costUsd: 0.1,
    })
    expect(parseBatonLine('Compiling...')).toBeUndefined()
    expect(parseBatonLine('{"type":"usage","costUsd":-1}')).toBeUndefined()
    expect(parseBatonLine('{"type":"mystery"}')).toBeUndefined()
  })
})

describe('parseClaudeCodeLine', () => {
  it('turns stream-json into session, usage, text and result events', () => {
    expect(parseClaudeCodeLine('{"type":"system","subtype":"init","session_id":"s1"}')).toEqual([
      { type: 'session', sessionId: 's1' },
    ])
    expect(
      parseClaudeCodeLine(
        '{"type":"assistant","message":{"content":[{"type":"text","text":"Looking"}],"usage":{"input_tokens":100,"output_tokens":20}},"session_id":"s1"}',
      ),
    ).toEqual([
      { type: 'usage', calls: 1, inputTokens: 100, outputTokens: 20 },
      { type: 'text', text: 'Looking' },
    ])
    expect(
      parseClaudeCodeLine(
        '{"type":"result","subtype":"success","is_error":false,"result":"Fixed it","total_cost_usd":0.042,"session_id":"s1"}',
      ),
    ).toEqual([{ type: 'result', text: 'Fixed it', costUsd: 0.042, sessionId: 's1' }])
    expect(
      parseClaudeCodeLine('{"type":"result","subtype":"error_max_turns","is_error":true}'),
    ).toEqual([{ type: 'error', message: 'claude ended with error_max_turns' }])
  })
})

describe('parseCodexLine', () => {
  it('turns exec --json events into session, text, usage and error events', () => {
    expect(parseCodexLine('{"type":"thread.started","thread_id":"t1"}')).toEqual([
      { type: 'session', sessionId: 't1' },
    ])
    expect(
      parseCodexLine(
        '{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"Done"}}',
      ),
    ).toEqual([{ type: 'text', text: 'Done' }])
    expect(
      parseCodexLine(
        '{"type":"turn.completed","usage":{"input_tokens":50,"cached_input_tokens":0,"output_tokens":7}}',
      ),
    ).toEqual([{ type: 'usage', calls: 1, inputTokens: 50, outputTokens: 7 }])
    expect(parseCodexLine('{"type":"turn.failed","error":{"message":"quota"}}')).toEqual([
      { type: 'error', message: 'quota' },
    ])
    expect(parseCodexLine('not json')).toEqual([])
  })
})
