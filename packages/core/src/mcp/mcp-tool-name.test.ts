import { describe, expect, it } from 'vitest'
import { mcpToolName } from './mcp-tool-name'

describe('mcpToolName', () => {
  it('names a tool mcp__<server>__<tool>, replacing what model APIs refuse', () => {
    expect(mcpToolName('files', 'read_file')).toBe('mcp__files__read_file')
    expect(mcpToolName('files', 'read.file/v2')).toBe('mcp__files__read_file_v2')
  })

  it('keeps long names within 64 characters and distinct', () => {
    const a = mcpToolName('search', `${'x'.repeat(80)}a`)
    const b = mcpToolName('search', `${'x'.repeat(80)}b`)
    expect(a).toMatch(/^[A-Za-z0-9_-]{1,64}$/)
    expect(a).toHaveLength(64)
    expect(a).not.toBe(b)
  })
})
