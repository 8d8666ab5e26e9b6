import type { LanguageModelV3FunctionTool, LanguageModelV3ProviderTool } from '@ai-sdk/provider'
import type { Tool, ToolSet } from 'ai'
import { prepareToolsAndToolChoice } from 'ai/internal'

type ModelTool = LanguageModelV3FunctionTool | LanguageModelV3ProviderTool

/**
 * The definition sent to the model for each tool, converted to JSON Schema once per tool and
 * name, not on every model call of every run (the conversion walks the whole zod schema).
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
    // The AI SDK's own conversion, so a tool is described exactly as generateText would.
    known = prepareToolsAndToolChoice({
      tools: { [name]: tool },
      toolChoice: undefined,
      activeTools: undefined,
    }).then((prepared) => prepared.tools![0]!)
    names.set(name, known)
    // A failed conversion is not kept: the next run tries again.
    known.catch(() => names.delete(name))
  }
  return known
}
