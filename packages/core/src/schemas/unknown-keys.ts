import type { z } from 'zod'

type Def = {
  type: string
  shape?: Record<string, z.ZodType>
  catchall?: z.ZodType
  innerType?: z.ZodType
  in?: z.ZodType
  element?: z.ZodType
  valueType?: z.ZodType
  options?: readonly z.ZodType[]
  getter?: () => z.ZodType
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The paths of `input`'s keys that no object of `schema` declares, however deep (an object in
 * an array, in an optional field, in a piped or refined schema, in a record's values). zod's
 * objects strip such keys without a word: a misspelt `minTrustTier` would make a swarm with no
 * trust floor. A strict object's keys are left to zod, which refuses them itself; a value
 * that is not an object where the schema wants one is not looked into; in a union, the option
 * that leaves the fewest unknown keys is the one meant.
 *
 * @example
 * unknownKeys(AgentSwarm, { id: 's', name: 'S', strategy: 'democratic', minTrustTeir: 'high', agents })
 * // → [['minTrustTeir']]
 */
export function unknownKeys(schema: z.ZodType, input: unknown): PropertyKey[][] {
  const found: PropertyKey[][] = []
  walk(schema, input, [], found)
  return found
}

function walk(schema: z.ZodType, value: unknown, path: PropertyKey[], found: PropertyKey[][]) {
  const def = defOf(schema)
  switch (def.type) {
    case 'object': {
      if (!isPlainObject(value) || !def.shape) return
      // A loose object (`z.looseObject`, `.catchall`) declares every key; a strict one
      // (`z.strictObject`) refuses an unknown key itself, so it is not told twice.
      const catchall = def.catchall && defOf(def.catchall).type
      for (const [key, item] of Object.entries(value)) {
        // Own fields only: `constructor` or `toString` is a key like any other, not the shape's.
        const field = Object.hasOwn(def.shape, key) ? def.shape[key] : undefined
        if (field) walk(field, item, [...path, key], found)
        else if (catchall === undefined) found.push([...path, key])
        else if (catchall !== 'never') walk(def.catchall!, item, [...path, key], found)
      }
      return
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      if (def.innerType) walk(def.innerType, value, path, found)
      return
    case 'pipe':
      if (def.in) walk(def.in, value, path, found)
      return
    case 'lazy':
      if (def.getter) walk(def.getter(), value, path, found)
      return
    case 'array':
      if (Array.isArray(value) && def.element) {
        for (const [index, item] of value.entries())
          walk(def.element, item, [...path, index], found)
      }
      return
    case 'record':
      if (isPlainObject(value) && def.valueType) {
        for (const [key, item] of Object.entries(value)) {
          walk(def.valueType, item, [...path, key], found)
        }
      }
      return
    case 'union': {
      let fewest: PropertyKey[][] | undefined
      for (const option of def.options ?? []) {
        const own: PropertyKey[][] = []
        walk(option, value, path, own)
        if (!fewest || own.length < fewest.length) fewest = own
        if (own.length === 0) break
      }
      if (fewest) found.push(...fewest)
      return
    }
    default:
      return
  }
}
