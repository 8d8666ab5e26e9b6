import type { JSONSchema7 } from '@ai-sdk/provider'
import { asSchema, type FlexibleSchema } from 'ai'

/**
 * The JSON Schema of every input schema converted so far, keyed by the schema object itself, not
 * by the tool: callers such as @baton/subagents build new tool objects for every agent around the
 * same module-level zod schemas, and zod's `toJSONSchema` walks the whole schema each time.
 */
const converted = new WeakMap<object, Promise<JSONSchema7>>()

/** What the AI SDK sends for a tool without an input schema. */
const noInput: JSONSchema7 = { type: 'object', properties: {}, additionalProperties: false }

/**
 * A tool's input schema as JSON Schema: a zod or standard schema, an AI SDK `jsonSchema()` or
 * `lazySchema()`, or a plain JSON Schema object. Converted once per schema object per process,
 * however many tools share it.
 *
 * @example
 * const Input = z.object({ path: z.string() })
 * await toolInputJsonSchema(Input) // { type: 'object', properties: { path: { type: 'string' } }, ... }
 */
export function toolInputJsonSchema(inputSchema: unknown): Promise<JSONSchema7> {
  if (
    inputSchema == null ||
    (typeof inputSchema !== 'object' && typeof inputSchema !== 'function')
  ) {
    return Promise.resolve(noInput)
  }
  const key = inputSchema as object
  let known = converted.get(key)
  if (!known) {
    // The executor runs at once, so a converter that throws becomes a rejection here.
    known = new Promise<JSONSchema7>((resolve) => resolve(convert(key)))
    converted.set(key, known)
    const settled = known
    // A failed conversion is not kept: the next run tries again.
    settled.catch(() => {
      if (converted.get(key) === settled) converted.delete(key)
    })
  }
  return known
}

function convert(inputSchema: object): JSONSchema7 | PromiseLike<JSONSchema7> {
  if (isPlainJsonSchema(inputSchema)) return inputSchema
  return asSchema(inputSchema as FlexibleSchema).jsonSchema
}

/** Neither a zod / standard schema, nor an AI SDK schema, nor a lazy one: JSON Schema already. */
function isPlainJsonSchema(value: object): value is JSONSchema7 {
  return (
    typeof value === 'object' &&
    !('~standard' in value) &&
    !(Symbol.for('vercel.ai.schema') in value)
  )
}
