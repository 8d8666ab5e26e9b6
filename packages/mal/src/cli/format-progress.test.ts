import { describe, expect, it } from 'vitest'
import { createProgressFormatter } from './format-progress'

const base = {
  runId: 'r',
  sequence: 3,
  at: '2026-01-01T00:00:00.000Z',
  path: 'steps[0]',
  op: 'delegate',
}
const names = { toolCallId: 'c1', name: 'mcp__files__read_file', wallet: '0x1' }

describe('createProgressFormatter', () => {
  it('shows each finished tool call under its step, with its server, time and error', () => {
    const progress = createProgressFormatter()
    expect(
      progress.format({
        type: 'tool-result',
        ...base,
        ...names,
        tool: 'read_file',
        server: 'files',
        durationMs: 12,
      }),
    ).toBe('    ⚙ read_file on files · 12 ms')
    expect(
      progress.format({
        type: 'tool-result',
        ...base,
        ...names,
        name: 'lookup',
        tool: 'lookup',
        durationMs: 3,
        error: { code: 'TOOL_FAILED', message: 'it broke' },
      }),
    ).toBe('    ⚙ lookup · 3 ms · TOOL_FAILED: it broke')
    // The call itself shows once it is over.
    expect(
      progress.format({
        type: 'tool-call',
        ...base,
        ...names,
        tool: 'read_file',
        input: {},
        inputHash: '0x00',
      }),
    ).toBeUndefined()
  })
})
