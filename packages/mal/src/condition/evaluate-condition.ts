import { lookupReference, type TemplateScope } from '../template'
import { ConditionTypeError } from './condition-errors'
import { type ConditionNode, parseCondition } from './parse-condition'

/**
 * Evaluates a condition against the run's values. A reference with no value reads as
 * `null` (so `while: "{{review.approved}} != true"` works before the first review).
 * Falsy: `null`, `false`, `0`, `""` and `[]`; everything else is truthy.
 *
 * @example
 * evaluateCondition('{{score}} >= 3 && {{label}} == "ok"', { inputs: {}, values: { score: 4, label: 'ok' } }) // true
 */
export function evaluateCondition(
  condition: string | ConditionNode,
  scope: TemplateScope,
): boolean {
  const source = typeof condition === 'string' ? condition : '(parsed condition)'
  const node = typeof condition === 'string' ? parseCondition(condition) : condition
  return truthy(evaluate(node, scope, source))
}

function evaluate(node: ConditionNode, scope: TemplateScope, source: string): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value
    case 'reference': {
      const result = lookupReference(scope, node.reference)
      return result.found ? (result.value ?? null) : null
    }
    case 'not':
      return !truthy(evaluate(node.operand, scope, source))
    case 'and':
      return (
        truthy(evaluate(node.left, scope, source)) && truthy(evaluate(node.right, scope, source))
      )
    case 'or':
      return (
        truthy(evaluate(node.left, scope, source)) || truthy(evaluate(node.right, scope, source))
      )
    case 'compare': {
      const left = evaluate(node.left, scope, source)
      const right = evaluate(node.right, scope, source)
      if (node.operator === '==') return equal(left, right)
      if (node.operator === '!=') return !equal(left, right)
      const [a, b] = orderable(left, right, source)
      if (node.operator === '<') return a < b
      if (node.operator === '<=') return a <= b
      if (node.operator === '>') return a > b
      return a >= b
    }
  }
}

/**
 * MAL truthiness: `null`, `undefined`, `false`, `0`, `""`, `NaN` and `[]` are false.
 *
 * @example
 * truthy([]) // false
 * truthy('no') // true
 */
export function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0
  return Boolean(value)
}

// Model output is text, so "3" and 3 compare equal; nothing else is coerced.
function numeric(value: unknown): number | undefined {
  if (typeof value === 'number') return value
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value)
  }
  return undefined
}

function equal(left: unknown, right: unknown): boolean {
  if (typeof left === 'number' || typeof right === 'number') {
    const a = numeric(left)
    const b = numeric(right)
    return a !== undefined && a === b
  }
  if (typeof left === 'object' || typeof right === 'object') {
    return JSON.stringify(left) === JSON.stringify(right)
  }
  return left === right
}

function orderable(
  left: unknown,
  right: unknown,
  source: string,
): [number, number] | [string, string] {
  const a = numeric(left)
  const b = numeric(right)
  if (a !== undefined && b !== undefined) return [a, b]
  if (typeof left === 'string' && typeof right === 'string') return [left, right]
  throw new ConditionTypeError({
    condition: source,
    reason: `cannot order ${JSON.stringify(left) ?? 'undefined'} and ${JSON.stringify(right) ?? 'undefined'} (both must be numbers or both strings)`,
  })
}
