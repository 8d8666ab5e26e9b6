/**
 * JSON with object keys sorted at every depth, so one value always has one spelling (what
 * a content hash must cover). `undefined` members are left out, as `JSON.stringify` does.
 *
 * @example
 * canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }) // '{"a":[{"c":3,"d":2}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value))
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const sorted: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key]
      if (member !== undefined) sorted[key] = sortKeys(member)
    }
    return sorted
  }
  return value
}
