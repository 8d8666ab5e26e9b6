import type { TemplateReference } from './parse-template'
import { TemplateUnresolvedError } from './template-errors'

/** What templates read: the run's inputs (also as `inputs.x`) and saved step values. */
export type TemplateScope = {
  inputs: Record<string, unknown>
  values: Record<string, unknown>
}

export type Lookup = { found: true; value: unknown } | { found: false; reason: string }

/**
 * Where a fanout branch's values keep the values of the block around it: a branch reads them
 * through this link with no copy, and what it saves stays its own. (A prototype did the same,
 * but setting one on each of a thousand branches' objects cost more than the rest of making
 * them.) Not an own string key: `Object.keys`, `for in` and JSON do not see it.
 */
export const PARENT_VALUES: unique symbol = Symbol('baton.parentValues')

/**
 * A fanout branch's values: empty, reading `parent`'s through `PARENT_VALUES`.
 *
 * @example
 * const values = branchValues(frame.values)
 */
export function branchValues(parent: Record<string, unknown>): Record<string, unknown> {
  const values = Object.create(null) as Record<string, unknown> & {
    [PARENT_VALUES]?: Record<string, unknown>
  }
  values[PARENT_VALUES] = parent
  return values
}

/** The values object that holds `name`: `values` itself or one it reads through. */
function holderOf(
  values: Record<string, unknown>,
  name: string,
): Record<string, unknown> | undefined {
  for (
    let level:
      | (Record<string, unknown> & { [PARENT_VALUES]?: Record<string, unknown> })
      | undefined = values;
    level !== undefined;
    level = level[PARENT_VALUES]
  ) {
    if (Object.hasOwn(level, name)) return level
  }
  return undefined
}

/**
 * Looks a reference up in a scope without throwing.
 *
 * @example
 * lookupReference({ inputs: {}, values: { a: [{ b: 1 }] } }, { source: 'a[0].b', root: 'a', path: [0, 'b'], offset: 0 })
 * // { found: true, value: 1 }
 */
export function lookupReference(scope: TemplateScope, reference: TemplateReference): Lookup {
  let current: unknown
  const holder = holderOf(scope.values, reference.root)
  if (holder) current = holder[reference.root]
  else if (reference.root === 'inputs') current = scope.inputs
  else if (Object.hasOwn(scope.inputs, reference.root)) current = scope.inputs[reference.root]
  else return { found: false, reason: `names "${reference.root}", which has no value yet` }
  let walked = reference.root
  for (const key of reference.path) {
    const step = typeof key === 'number' ? `[${key}]` : `.${key}`
    if (typeof key === 'number') {
      if (!Array.isArray(current) || key >= current.length) {
        return { found: false, reason: `has no ${step} in ${walked} (${describe(current)})` }
      }
      current = current[key]
    } else {
      if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) {
        return { found: false, reason: `has no ${step} in ${walked} (${describe(current)})` }
      }
      current = (current as Record<string, unknown>)[key]
    }
    walked += step
  }
  return { found: true, value: current }
}

/**
 * Like `lookupReference`, but a missing value throws a `TemplateUnresolvedError`.
 *
 * @example
 * const [reference] = findReferences('{{draft.title}}')
 * resolveReference({ inputs: {}, values: { draft: { title: 'Q3' } } }, reference!) // 'Q3'
 */
export function resolveReference(scope: TemplateScope, reference: TemplateReference): unknown {
  const result = lookupReference(scope, reference)
  if (!result.found) {
    throw new TemplateUnresolvedError({ reference: reference.source, reason: result.reason })
  }
  return result.value
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (typeof value === 'object') return 'an object'
  return `a ${typeof value}`
}
