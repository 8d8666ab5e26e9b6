import type { LanguageModelV3FunctionTool, LanguageModelV3ProviderTool } from '@ai-sdk/provider'
import { jsonSchema, type Tool, type ToolSet } from 'ai'
import { prepareToolsAndToolChoice } from 'ai/internal'
import { toolInputJsonSchema } from './tool-input-json-schema'

type ModelTool = LanguageModelV3FunctionTool | LanguageModelV3ProviderTool

/**
 * The definition sent to the model for each tool and name, made once rather than on every model
 * call of every run. The costly part, the input schema's conversion, is shared further still: by
 * every tool with the same schema object (see `toolInputJsonSchema`).
 */
const definitions = new WeakMap<Tool, Map<string, Promise<ModelTool>>>()

/**
 * The tools of a run as the model sees them; `undefined` when the run has none.
 *
 * @example
 * const tools = await modelTools({ add }) // [{ type: 'function', name: 'add', inputSchema: {...} }]
 */
export async function modelTools(tools: ToolSet): Promise<ModelTool[] | undefined> {
  const names = Object.keys(tools)
  if (names.length === 0) return undefined
  return Promise.all(names.map((name) => definition(name, tools[name]!)))
}

function definition(name: string, tool: Tool): Promise<ModelTool> {
  let byName = definitions.get(tool)
  if (!byName) {
    byName = new Map()
    definitions.set(tool, byName)
  }
  const names = byName
  let known = byName.get(name)
  if (!known) {
    known = describeTool(name, tool)
    names.set(name, known)
    // A failed conversion is not kept: the next run tries again.
    known.catch(() => names.delete(name))
  }
  return known
}

async function describeTool(name: string, tool: Tool): Promise<ModelTool> {
  // Provider tools send no input schema: nothing to convert.
  const described =
    tool.type === 'provider'
      ? tool
      : { ...tool, inputSchema: jsonSchema(await toolInputJsonSchema(tool.inputSchema)) }
  // The AI SDK's own conversion for the rest, so a tool is described exactly as generateText would.
  const prepared = await prepareToolsAndToolChoice({
    tools: { [name]: described },
    toolChoice: undefined,
    activeTools: undefined,
  })
  return prepared.tools![0]!
}
