import type { LanguageModelV3FunctionTool, LanguageModelV3ProviderTool } from '@ai-sdk/provider'
import { jsonSchema, type Tool, type ToolSet } from 'ai'
import { prepareToolsAndToolChoice } from 'ai/internal'
import { toolInputJsonSchema } from './tool-input-json-schema'

type ModelTool = LanguageModelV3FunctionTool | LanguageModelV3ProviderTool

/**
 * The definition sent to the model for each tool and name, made once rather than on every model
 * call of every run: by tool, or, for a plain function tool, by input schema object, name and
 * description, so tools made afresh for every run share one. The input schema's conversion is
 * shared further still: by every tool with the same schema object (see `toolInputJsonSchema`).
 */
const definitions = new WeakMap<object, Map<string, Promise<ModelTool>>>()

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
  // Keyed by what the model is told when that is all a tool says (a new tool object per run,
  // as each sub-agent's file and delegation tools are, describes the same), else by the tool.
  const key = sharedKeyOf(tool)
  const owner: object = key ? tool.inputSchema : tool
  let byName = definitions.get(owner)
  if (!byName) {
    byName = new Map()
    definitions.set(owner, byName)
  }
  const names = byName
  const entry = key ? `${name}\u0000${tool.description ?? ''}` : name
  let known = byName.get(entry)
  if (!known) {
    known = describeTool(name, tool)
    names.set(entry, known)
    // A failed conversion is not kept: the next run tries again.
    known.catch(() => names.delete(entry))
  }
  return known
}

/**
 * True when a tool's definition is only its name, description and input schema: a function
 * tool with no input examples, provider options or strict mode (which the AI SDK would also
 * send). Those with the same three are described once, whatever their `execute`.
 */
function sharedKeyOf(tool: Tool): boolean {
  return (
    (tool.type === undefined || tool.type === 'function' || tool.type === 'dynamic') &&
    typeof tool.inputSchema === 'object' &&
    tool.inputSchema !== null &&
    (tool.description === undefined || typeof tool.description === 'string') &&
    tool.inputExamples == null &&
    tool.providerOptions == null &&
    tool.strict == null
  )
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
