/**
 * A predicate for `z.custom`: true when the value is an object with a function under each
 * name. Stores, buses and runners are duck-typed, so this is how their options are checked.
 *
 * @example
 * z.custom(hasMethods('start', 'subscribe'), 'must be a SwarmRunner')
 */
export function hasMethods(...names: string[]): (value: unknown) => boolean {
  return (value) =>
    typeof value === 'object' &&
    value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')
}
