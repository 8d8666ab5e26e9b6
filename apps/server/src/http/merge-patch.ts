const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * `target` with `patch` applied as a JSON Merge Patch (RFC 7396): an object in the patch
 * changes the fields it names and keeps the others, at every depth; `null` removes a field
 * (back to its default, where it has one); anything else, an array among them, replaces the
 * value. Neither argument is changed.
 *
 * @example
 * mergePatch({ card: { tagline: 'a', examples: ['x'] } }, { card: { tagline: 'b' } })
 * // { card: { tagline: 'b', examples: ['x'] } }
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch
  const merged: Record<string, unknown> = isObject(target) ? { ...target } : {}
  for (const [key, value] of Object.entries(patch)) {
    // The body parser refuses such keys already; a merge must never set a prototype either.
    if (key === '__proto__') continue
    if (value === null) delete merged[key]
    else merged[key] = mergePatch(merged[key], value)
  }
  return merged
}
