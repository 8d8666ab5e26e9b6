/** The subset of JSON Schema the offline model fills in. */
type Schema = {
  type?: string | string[]
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema | Schema[]
  enum?: unknown[]
  const?: unknown
  anyOf?: Schema[]
  oneOf?: Schema[]
  allOf?: Schema[]
  minimum?: number
  exclusiveMinimum?: number
  maximum?: number
  minItems?: number
  minLength?: number
  maxLength?: number
  format?: string
  default?: unknown
}

/**
 * A deterministic value valid against a JSON schema (the common subset: objects, arrays,
 * strings, numbers, enums, unions). Strings take `text`, shaped to the schema's constraints.
 *
 * @example
 * schemaExample({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] }, 'hi')
 * // { ok: true }
 */
export function schemaExample(schema: unknown, text: string, depth = 0): unknown {
  const node = (typeof schema === 'object' && schema !== null ? schema : {}) as Schema
  if (depth > 8) return null
  if ('const' in node) return node.const
  if (node.enum?.length) return node.enum[0]
  if (node.default !== undefined) return node.default
  const union = node.anyOf ?? node.oneOf
  if (union?.length) return schemaExample(union[0], text, depth + 1)
  if (node.allOf?.length) {
    const parts = node.allOf.map((part) => schemaExample(part, text, depth + 1))
    return parts.every(isRecord) ? Object.assign({}, ...parts) : parts.at(-1)
  }
  const type = Array.isArray(node.type) ? node.type.find((t) => t !== 'null') : node.type
  switch (type ?? (node.properties ? 'object' : undefined)) {
    case 'object':
      return Object.fromEntries(
        Object.entries(node.properties ?? {}).map(([key, value]) => [
          key,
          schemaExample(value, text, depth + 1),
        ]),
      )
    case 'array': {
      const item = Array.isArray(node.items) ? node.items[0] : node.items
      return Array.from({ length: node.minItems ?? 0 }, () => schemaExample(item, text, depth + 1))
    }
    case 'string':
      return exampleString(node, text)
    case 'integer':
    case 'number':
      return exampleNumber(node, type === 'integer')
    case 'boolean':
      return true
    case 'null':
      return null
    default:
      return text
  }
}

function exampleString(node: Schema, text: string): string {
  if (node.format === 'date-time') return '2025-01-01T00:00:00.000Z'
  if (node.format === 'date') return '2025-01-01'
  if (node.format === 'email') return 'agent@example.com'
  if (node.format === 'uri' || node.format === 'url') return 'https://example.com'
  if (node.format === 'uuid') return '00000000-0000-4000-8000-000000000000'
  let value = text || 'example'
  if (node.minLength !== undefined && value.length < node.minLength) {
    value = value.padEnd(node.minLength, '.')
  }
  if (node.maxLength !== undefined) value = value.slice(0, node.maxLength)
  return value
}

function exampleNumber(node: Schema, integer: boolean): number {
  let value = 0
  if (node.minimum !== undefined) value = Math.max(value, node.minimum)
  if (node.exclusiveMinimum !== undefined && value <= node.exclusiveMinimum) {
    value = node.exclusiveMinimum + (integer ? 1 : 0.5)
  }
  if (node.maximum !== undefined && value > node.maximum) value = node.maximum
  return integer ? Math.ceil(value) : value
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
