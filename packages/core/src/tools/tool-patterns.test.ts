import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { assertAllowed, createToolRegistry } from './create-tool-registry'
import { ToolNotAllowedError } from './tool-errors'
import { matchesToolPattern } from './tool-patterns'

const noop = tool({ inputSchema: z.object({}), execute: async () => 'ok' })

describe('matchesToolPattern', () => {
  it('matches a name exactly, or every name a `prefix*` pattern starts', () => {
    expect(matchesToolPattern('search', 'search')).toBe(true)
    expect(matchesToolPattern('search', 'search2')).toBe(false)
    expect(matchesToolPattern('mcp__files__*', 'mcp__files__read_file')).toBe(true)
    expect(matchesToolPattern('mcp__files__*', 'mcp__filesystem__read_file')).toBe(false)
  })

  it('lets a card pattern allow and bind the tools under it, and nothing else', () => {
    const registry = createToolRegistry({ mcp__a__one: noop, mcp__a__two: noop, mcp__b__one: noop })
    expect(Object.keys(registry.bind(['mcp__a__*'])).sort()).toEqual(['mcp__a__one', 'mcp__a__two'])
    expect(Object.keys(registry.bind(['mcp__a__*'], ['mcp__a__two']))).toEqual(['mcp__a__two'])
    expect(() => assertAllowed(['mcp__a__*'], ['mcp__b__one'])).toThrow(ToolNotAllowedError)
  })
})
