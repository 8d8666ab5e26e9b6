/** How deep a request's JSON may nest (objects and arrays), counted from its top. */
export const maxInputDepth = 64

export type UnsafeValue = { path: string; message: string }

/**
 * The first place in a parsed request value (body, query or params) that the database or
 * the stack cannot take: a string or a key with a NUL character (PostgreSQL refuses
 * `\u0000` in text and JSON), or objects nested deeper than `maxDepth`. Walks without
 * recursion, so no depth of nesting overflows the stack here. The path is dotted from
 * `prefix` (`body.inputs.q`), as validation issues are.
 *
 * @example
 * findUnsafeValue({ name: 'a\u0000b' }, 'body') // { path: 'body.name', message: 'must not contain a NUL character (\\u0000)' }
 */
export function findUnsafeValue(
  value: unknown,
  prefix: string,
  maxDepth = maxInputDepth,
): UnsafeValue | undefined {
  // Every request's params and query pass here, and nearly all are safe: the first walk
  // allocates nothing but its stack, and only an unsafe value is walked again for its path.
  return isSafe(value, maxDepth) ? undefined : locate(value, prefix, maxDepth)
}

const hasNul = (text: string) => text.includes('\u0000')

// Whether `value` holds no NUL character (in a string or a key) and no object at `maxDepth`.
function isSafe(value: unknown, maxDepth: number): boolean {
  if (typeof value === 'string') return !hasNul(value)
  if (value === null || typeof value !== 'object') return true
  const objects: object[] = [value]
  const depths: number[] = [0]
  for (let current = objects.pop(); current !== undefined; current = objects.pop()) {
    const depth = depths.pop()!
    if (depth >= maxDepth) return false
    const keys = Array.isArray(current) ? undefined : Object.keys(current)
    const count = keys ? keys.length : (current as unknown[]).length
    for (let index = 0; index < count; index++) {
      const key = keys?.[index]
      if (key !== undefined && hasNul(key)) return false
      const member =
        key === undefined
          ? (current as unknown[])[index]
          : (current as Record<string, unknown>)[key]
      if (typeof member === 'string') {
        if (hasNul(member)) return false
      } else if (member !== null && typeof member === 'object') {
        objects.push(member)
        depths.push(depth + 1)
      }
    }
  }
  return true
}

// The first unsafe place in `value`, by its path (the first member first).
function locate(value: unknown, prefix: string, maxDepth: number): UnsafeValue | undefined {
  const pending: { value: unknown; path: string[]; depth: number }[] = [
    { value, path: [prefix], depth: 0 },
  ]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: current, path, depth } = next
    if (typeof current === 'string') {
      if (current.includes('\u0000')) {
        return { path: path.join('.'), message: 'must not contain a NUL character (\\u0000)' }
      }
      continue
    }
    if (current === null || typeof current !== 'object') continue
    if (depth >= maxDepth) {
      return { path: path.join('.'), message: `is nested deeper than ${maxDepth} levels` }
    }
    const entries = Array.isArray(current)
      ? current.map((item, index) => [String(index), item] as const)
      : Object.entries(current)
    // Reversed, so the first member is looked at first and reported first.
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, member] = entries[index]!
      if (key.includes('\u0000')) {
        return {
          path: path.join('.'),
          message: 'must not have a key with a NUL character (\\u0000)',
        }
      }
      pending.push({ value: member, path: [...path, key], depth: depth + 1 })
    }
  }
  return undefined
}
