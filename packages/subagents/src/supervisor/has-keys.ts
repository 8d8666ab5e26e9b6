/**
 * Whether an object has any enumerable key: options without one take their defaults with no
 * parse.
 *
 * @example
 * hasKeys({}) // false
 */
export function hasKeys(value: object): boolean {
  for (const _ in value) return true
  return false
}
