import type { LanguageModelV3FunctionTool, LanguageModelV3ProviderTool } from '@ai-sdk/provider'
import { jsonSchema, type Tool, type ToolSet } from 'ai'
import { prepareToolsAndToolChoice } from 'ai/internal'
import { toolInputJsonSchema } from './tool-input-json-schema'

type ModelTool = LanguageModelV3FunctionTool | LanguageModelV3ProviderTool

/**
 * The definition sent to the model for each tool, made once rather than on every model call of
 * every run, kept by its owner (see `isOwnOwner`). The costly part, the input schema's conversion,
 * is shared further still: by every tool with the same schema object (see `toolInputJsonSchema`).
 */
const definitions = new WeakMap<object, Definition[]>()

/**
 * One definition and what it was made from. An owner has a handful (the tools around one
 * schema), found by comparing the tool's own strings: nothing is built or kept per tool object
 * to find it, so tools made anew for every run (a sub-agent's) cost no memory here.
 */
type Definition = {
  name: string
  strict: Tool['strict']
  description: Tool['description']
  pending: Promise<ModelTool>
  /** Set once `pending` settled with a definition. */
  made?: ModelTool
}

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

/**
 * The tools of a run as the model sees them, when every definition was made before (the same
 * tools on every hop); `undefined` when one is still to make (`modelTools` makes it).
 *
 * @example
 * const tools = madeModelTools({ add }) ?? (await modelTools({ add }))
 */
export function madeModelTools(tools: ToolSet): ModelTool[] | undefined {
  const made: ModelTool[] = []
  for (const name of Object.keys(tools)) {
    const known = findDefinition(name, tools[name]!)?.made
    if (!known) return undefined
    made.push(known)
  }
  return made
}

function definition(name: string, tool: Tool): Promise<ModelTool> {
  const own = isOwnOwner(tool)
  const owner = own ? tool : (tool.inputSchema as object)
  let owned = definitions.get(owner)
  const known = owned && findIn(owned, name, tool, own)
  if (known) return known.pending
  if (!owned) {
    owned = []
    definitions.set(owner, owned)
  }
  const list = owned
  const made: Definition = {
    name,
    strict: tool.strict,
    description: tool.description,
    pending: describeTool(name, tool),
  }
  list.push(made)
  made.pending.then(
    (described) => {
      made.made = described
    },
    // A failed conversion is not kept: the next run tries again.
    () => list.splice(list.indexOf(made), 1),
  )
  return made.pending
}

function findDefinition(name: string, tool: Tool): Definition | undefined {
  const own = isOwnOwner(tool)
  const owned = definitions.get(own ? tool : (tool.inputSchema as object))
  return owned && findIn(owned, name, tool, own)
}

function findIn(
  owned: Definition[],
  name: string,
  tool: Tool,
  own: boolean,
): Definition | undefined {
  for (const known of owned) {
    // A tool that owns its definition is told by its name alone (the object is the rest).
    if (
      known.name === name &&
      (own || (known.strict === tool.strict && known.description === tool.description))
    ) {
      return known
    }
  }
  return undefined
}

/**
 * Whether a tool keeps its definition by the tool object itself. A function tool is described
 * by its name, description, `strict` and input schema alone (the AI SDK's
 * `prepareToolsAndToolChoice`), so tools built anew for every run around one module-level schema
 * (the conclave's, a sub-agent's) share one definition, kept by that schema; any other tool
 * keeps its own, by the tool object.
 */
function isOwnOwner(tool: Tool): boolean {
  const schema: unknown = tool.inputSchema
  return !(
    (tool.type === undefined || tool.type === 'function' || tool.type === 'dynamic') &&
    tool.inputExamples == null &&
    tool.providerOptions === undefined &&
    ((typeof schema === 'object' && schema !== null) || typeof schema === 'function')
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
