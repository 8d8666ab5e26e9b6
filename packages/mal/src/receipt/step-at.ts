/**
 * The step of a plan at an event's path (`steps[2].branches[0].steps[1]`), or undefined.
 *
 * @example
 * stepAt(plan, 'steps[1].then[0]') // the first step of the second step's `then`
 */
export function stepAt(plan: object, path: string): unknown {
  let current: unknown = plan
  for (const match of path.matchAll(/([A-Za-z_]+)|\[(\d+)\]/g)) {
    if (current === null || typeof current !== 'object') return undefined
    const key = match[1] ?? Number(match[2])
    current = (current as Record<string | number, unknown>)[key]
  }
  return current
}
