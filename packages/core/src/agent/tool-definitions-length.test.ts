import type { LanguageModelV3FunctionTool, LanguageModelV3ProviderTool } from '@ai-sdk/provider'
import { describe, expect, it } from 'vitest'
import { toolDefinitionsLength } from './tool-definitions-length'

describe('toolDefinitionsLength', () => {
  it('is the length of the definitions as JSON', () => {
    const schema = { type: 'object' as const, properties: { a: { type: 'number' as const } } }
    const tools: (LanguageModelV3FunctionTool | LanguageModelV3ProviderTool)[] = [
      { type: 'function', name: 'add', description: 'Adds "two" numbers.', inputSchema: schema },
      { type: 'function', name: 'sum', inputSchema: schema, providerOptions: undefined },
      { type: 'provider', name: 'search', id: 'openai.web_search', args: { size: 3 } },
    ]
    expect(toolDefinitionsLength(tools)).toBe(JSON.stringify(tools).length)
    expect(toolDefinitionsLength(tools.slice(0, 1))).toBe(JSON.stringify(tools.slice(0, 1)).length)
    expect(toolDefinitionsLength([])).toBe(JSON.stringify([]).length)
  })

  it('serializes an input schema shared by many definitions once', () => {
    let serialized = 0
    // JSON.stringify calls toJSON each time it serializes the schema.
    const schema = {
      toJSON: () => {
        serialized++
        return { type: 'object' }
      },
    } as unknown as LanguageModelV3FunctionTool['inputSchema']
    const definitions: LanguageModelV3FunctionTool[] = Array.from({ length: 5 }, (_, index) => ({
      type: 'function',
      name: `tool_${index}`,
      inputSchema: schema,
    }))
    const expected = JSON.stringify(definitions).length
    serialized = 0
    expect(toolDefinitionsLength(definitions)).toBe(expected)
    expect(toolDefinitionsLength([...definitions])).toBe(expected)
    expect(serialized).toBe(1)
  })
})
