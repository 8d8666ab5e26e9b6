import { asSchema, jsonSchema, tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { madeModelTools, modelTools } from './model-tools'
import { toolInputJsonSchema } from './tool-input-json-schema'

/** A standard schema that counts how often it is converted to JSON Schema. */
function countingSchema(options: { failFirst?: boolean } = {}) {
  const counter = { conversions: 0 }
  const schema = {
    '~standard': {
      version: 1 as const,
      vendor: 'counting',
      validate: (value: unknown) => ({ value }),
      jsonSchema: {
        input: () => {
          counter.conversions++
          if (options.failFirst && counter.conversions === 1) throw new Error('not yet')
          return { type: 'object' as const, properties: { path: { type: 'string' as const } } }
        },
        output: () => ({}),
      },
    },
  }
  return { schema, counter }
}

describe('modelTools', () => {
  it('converts an input schema shared by two tools once', async () => {
    const { schema, counter } = countingSchema()
    // Two tool objects, as @baton/subagents makes for every agent, around one schema object.
    const read = tool({ inputSchema: schema, execute: async () => 'read' })
    const again = tool({ inputSchema: schema, execute: async () => 'again' })
    const [first] = (await modelTools({ read_file: read }))!
    const [second] = (await modelTools({ read_file: again }))!
    expect(counter.conversions).toBe(1)
    const described = { type: 'function', name: 'read_file', inputSchema: { type: 'object' } }
    expect(first).toMatchObject(described)
    expect(second).toMatchObject(described)
  })

  it('shares one definition among tools built anew around one schema, told apart by name, description and strict', async () => {
    const Input = z.object({ key: z.string() })
    const make = (description: string, strict?: boolean) =>
      tool({
        description,
        inputSchema: Input,
        ...(strict === undefined ? {} : { strict }),
        execute: async () => 0,
      })
    const [first] = (await modelTools({ read: make('Reads.') }))!
    const [same] = (await modelTools({ read: make('Reads.') }))!
    const [renamed] = (await modelTools({ fetch: make('Reads.') }))!
    const [redescribed] = (await modelTools({ read: make('Reads a key.') }))!
    const [strict] = (await modelTools({ read: make('Reads.', true) }))!
    expect(same).toBe(first)
    expect(renamed).toMatchObject({ name: 'fetch', description: 'Reads.' })
    expect(redescribed).toMatchObject({ name: 'read', description: 'Reads a key.' })
    expect(strict).toMatchObject({ name: 'read', strict: true })
    expect(new Set([first, renamed, redescribed, strict]).size).toBe(4)
    // Made once, they are handed out at once, in the tool set's order.
    expect(madeModelTools({ fetch: make('Reads.'), read: make('Reads.') })).toEqual([
      renamed,
      first,
    ])
    expect(madeModelTools({ read: make('Never described.') })).toBeUndefined()
    // A tool with provider options keeps a definition of its own, with them.
    const withOptions = tool({
      description: 'Reads.',
      inputSchema: Input,
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      execute: async () => 0,
    })
    const [own] = (await modelTools({ read: withOptions }))!
    expect(own).not.toBe(first)
    expect(own).toMatchObject({
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
    })
  })

  it('describes a zod tool exactly as the AI SDK converts its schema', async () => {
    const Input = z.object({ a: z.number(), b: z.number().optional() })
    const add = tool({ description: 'Adds.', inputSchema: Input, execute: async () => 0 })
    const [described] = (await modelTools({ add }))!
    expect(described).toEqual({
      type: 'function',
      name: 'add',
      description: 'Adds.',
      inputSchema: await asSchema(Input).jsonSchema,
      providerOptions: undefined,
    })
  })
})

describe('toolInputJsonSchema', () => {
  it('takes a plain JSON Schema and an AI SDK jsonSchema() as they are', async () => {
    const plain = { type: 'object' as const, properties: { id: { type: 'string' as const } } }
    expect(await toolInputJsonSchema(plain)).toBe(plain)
    expect(await toolInputJsonSchema(jsonSchema(plain))).toBe(plain)
  })

  it('describes a tool without an input schema as taking an empty object', async () => {
    expect(await toolInputJsonSchema(undefined)).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    })
  })

  it('tries a failed conversion again on the next call', async () => {
    const { schema, counter } = countingSchema({ failFirst: true })
    await expect(toolInputJsonSchema(schema)).rejects.toThrow('not yet')
    await expect(toolInputJsonSchema(schema)).resolves.toMatchObject({ type: 'object' })
    expect(counter.conversions).toBe(2)
  })
})
