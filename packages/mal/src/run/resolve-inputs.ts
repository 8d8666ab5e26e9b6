import type { InputSpec } from '../plan'
import { PlanInputError } from './run-errors'

const checks: Record<InputSpec['type'], (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  boolean: (value) => typeof value === 'boolean',
  object: (value) => value !== null && typeof value === 'object' && !Array.isArray(value),
  array: (value) => Array.isArray(value),
  any: () => true,
}

/**
 * Checks run inputs against the plan's declared inputs and fills in defaults. Unknown,
 * missing and mistyped inputs are all reported at once.
 *
 * @example
 * resolveInputs({ request: { type: 'string' } }, { request: 'ship it' }) // { request: 'ship it' }
 */
export function resolveInputs(
  specs: Record<string, InputSpec>,
  given: Record<string, unknown> = {},
): Record<string, unknown> {
  const issues: { path: string; message: string }[] = []
  const inputs: Record<string, unknown> = {}
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(specs, name)) {
      const known = Object.keys(specs).join(', ') || 'none'
      issues.push({ path: name, message: `the plan declares no such input (it has: ${known})` })
    }
  }
  for (const [name, spec] of Object.entries(specs)) {
    const value = Object.hasOwn(given, name) ? given[name] : spec.default
    if (value === undefined) {
      issues.push({ path: name, message: `missing (a ${spec.type} is required)` })
    } else if (!checks[spec.type](value)) {
      issues.push({ path: name, message: `must be a ${spec.type}, got ${JSON.stringify(value)}` })
    } else {
      inputs[name] = value
    }
  }
  if (issues.length > 0) throw new PlanInputError(issues)
  return inputs
}
