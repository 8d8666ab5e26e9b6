import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createToolRegistry } from './create-tool-registry'
import { ToolAlreadyRegisteredError, ToolNotAllowedError, UnknownToolError } from './tool-errors'

const echo = tool({
  inputSchema: z.object({ text: z.string() }),
  execute: async ({ text }) => text,
})
const search = tool({ inputSchema: z.object({ query: z.string() }), execute: async () => [] })

describe('createToolRegistry', () => {
  it('binds the tools the card allows', () => {
    const tools = createToolRegistry({ echo, search })
    expect(tools.names()).toEqual(['echo', 'search'])
    expect(tools.bind(['echo', 'search'])).toEqual({ echo, search })
    expect(tools.bind([])).toEqual({})
  })

  it('binds only the narrowed tools', () => {
    const tools = createToolRegistry({ echo, search })
    expect(tools.bind(['echo', 'search'], ['search'])).toEqual({ search })
    expect(tools.bind(['echo', 'search'], [])).toEqual({})
  })

  it('refuses to narrow to a tool the card does not list, naming both', () => {
    const tools = createToolRegistry({ echo, search })
    expect(() => tools.bind(['echo'], ['echo', 'search'])).toThrow(ToolNotAllowedError)
    expect(() => tools.bind(['echo'], ['search'])).toThrow(
      'Tool "search" is not allowed for this agent; its card lists "echo".',
    )
    expect(() => tools.bind([], ['search'])).toThrow('its card lists no tools')
  })

  it('refuses a name nobody registered', () => {
    const tools = createToolRegistry({ echo })
    expect(() => tools.bind(['echo', 'shell'])).toThrow(UnknownToolError)
    expect(() => tools.bind(['shell'])).toThrow(
      'Tool "shell" is not registered. Registered tools: echo.',
    )
  })

  it('refuses a second tool under a taken name and names that break provider rules', () => {
    const tools = createToolRegistry({ echo })
    expect(() => tools.register('echo', search)).toThrow(ToolAlreadyRegisteredError)
    expect(() => tools.register('has space', search)).toThrow(/Invalid tool name/)
    tools.register('web-search', search)
    expect(tools.get('web-search')).toBe(search)
    expect(tools.get('missing')).toBeUndefined()
  })
})
