import type { LanguageModelV3FunctionTool, LanguageModelV3ProviderTool } from '@ai-sdk/provider'

type ModelTool = LanguageModelV3FunctionTool | LanguageModelV3ProviderTool

/**
 * Serialized lengths, by definition and by input schema: the definitions and their JSON Schemas
 * are shared across calls and runs (see `modelTools`), and serializing the schemas again on every
 * call was the budget middleware's largest cost.
 */
const lengths = new WeakMap<object, number>()

/**
 * `JSON.stringify(tools).length`, without serializing again what was serialized before.
 *
 * @example
 * toolDefinitionsLength([{ type: 'function', name: 'add', inputSchema: { type: 'object' } }]) // 66
 */
export function toolDefinitionsLength(tools: readonly ModelTool[]): number {
  if (tools.length === 0) return 2
  // The brackets and the commas between definitions.
  let length = 1 + tools.length
  for (const tool of tools) length += definitionLength(tool)
  return length
}

function definitionLength(tool: ModelTool): number {
  let length = lengths.get(tool)
  if (length === undefined) {
    length =
      tool.type === 'function' && typeof tool.inputSchema === 'object' && tool.inputSchema !== null
        ? // A one-character stand-in, then the schema's own (shared) length in its place.
          JSON.stringify({ ...tool, inputSchema: 0 }).length - 1 + schemaLength(tool.inputSchema)
        : JSON.stringify(tool).length
    lengths.set(tool, length)
  }
  return length
}

function schemaLength(schema: object): number {
  let length = lengths.get(schema)
  if (length === undefined) {
    length = JSON.stringify(schema).length
    lengths.set(schema, length)
  }
  return length
}
