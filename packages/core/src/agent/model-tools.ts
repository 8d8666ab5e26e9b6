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
const definitions = new WeakMap<object, Map<string, Promise<ModelTool>>>()

/** The same definitions once made, to be handed out without a promise. */
const madeDefinitions = new WeakMap<object, Map<string, ModelTool>>()

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
    const { owner, key } = definitionKey(name, tools[name]!)
    const known = madeDefinitions.get(owner)?.get(key)
    if (!known) return undefined
    made.push(known)
  }
  return made
}

function definition(name: string, tool: Tool): Promise<ModelTool> {
  const { owner, key } = definitionKey(name, tool)
  let byName = definitions.get(owner)
  if (!byName) {
    byName = new Map()
    definitions.set(owner, byName)
  }
  const names = byName
  let known = byName.get(key)
  if (!known) {
    known = describeTool(name, tool)
    names.set(key, known)
    known.then(
      (made) => {
        let byKey = madeDefinitions.get(owner)
        if (!byKey) {
          byKey = new Map()
          madeDefinitions.set(owner, byKey)
        }
        byKey.set(key, made)
      },
      // A failed conversion is not kept: the next run tries again.
      () => names.delete(key),
    )
  }
  return known
}

/**
 * Where a tool's definition is kept. A function tool is described by its name, description,
 * `strict` and input schema alone (the AI SDK's `prepareToolsAndToolChoice`), so tools built
 * anew for every run around one module-level schema (the conclave's, a sub-agent's) share one
 * definition, kept by that schema; any other tool keeps its own, by the tool object.
 */
function definitionKey(name: string, tool: Tool): DefinitionKey {
  // The key of a tool seen before, if none of the fields it was made from has changed: a
  // key built again is a new string, hashed again with its description on every look-up.
  const known = keys.get(tool)
  if (
    known &&
    known.name === name &&
    known.schema === tool.inputSchema &&
    known.type === tool.type &&
    known.strict === tool.strict &&
    known.description === tool.description &&
    known.inputExamples === tool.inputExamples &&
    known.providerOptions === tool.providerOptions
  ) {
    return known
  }
  const made = makeDefinitionKey(name, tool)
  keys.set(tool, {
    ...made,
    name,
    schema: tool.inputSchema,
    type: tool.type,
    strict: tool.strict,
    description: tool.description,
    inputExamples: tool.inputExamples,
    providerOptions: tool.providerOptions,
  })
  return made
}

type DefinitionKey = { owner: object; key: string }

// The key each tool object was last given, with the fields it was made from.
const keys = new WeakMap<
  Tool,
  DefinitionKey & {
    name: string
    schema: unknown
    type: Tool['type']
    strict: Tool['strict']
    description: Tool['description']
    inputExamples: Tool['inputExamples']
    providerOptions: Tool['providerOptions']
  }
>()

function makeDefinitionKey(name: string, tool: Tool): DefinitionKey {
  const schema: unknown = tool.inputSchema
  const plain =
    (tool.type === undefined || tool.type === 'function' || tool.type === 'dynamic') &&
    tool.inputExamples == null &&
    tool.providerOptions === undefined &&
    ((typeof schema === 'object' && schema !== null) || typeof schema === 'function')
  if (!plain) return { owner: tool, key: name }
  return {
    owner: schema as object,
    // NUL cannot appear in a tool's name; an absent description is told from an empty one.
    key: `${name}\0${tool.strict ?? ''}\0${tool.description === undefined ? '\0' : `:${tool.description}`}`,
  }
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
