import type { TemplateReference } from '../template'
import { ConditionSyntaxError } from './condition-errors'
import {
  type ComparisonOperator,
  type ConditionToken,
  tokenizeCondition,
} from './tokenize-condition'

export type ConditionNode =
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'reference'; reference: TemplateReference }
  | { kind: 'not'; operand: ConditionNode }
  | { kind: 'and' | 'or'; left: ConditionNode; right: ConditionNode }
  | { kind: 'compare'; operator: ComparisonOperator; left: ConditionNode; right: ConditionNode }

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>='])

/**
 * Parses a condition with a recursive-descent parser:
 * `or := and ('||' and)*`, `and := unary ('&&' unary)*`, `unary := '!' unary | compare`,
 * `compare := primary (op primary)?`, `primary := '(' or ')' | reference | literal`.
 *
 * @example
 * parseCondition('!({{a}} == 1) || {{b}}').kind // 'or'
 */
export function parseCondition(condition: string): ConditionNode {
  const tokens = tokenizeCondition(condition)
  let position = 0
  const peek = (): ConditionToken | undefined => tokens[position]
  const fail = (reason: string, token = peek()): never => {
    throw new ConditionSyntaxError({
      condition,
      offset: token?.offset ?? condition.length,
      reason,
    })
  }
  const isOperator = (operator: string) => {
    const token = peek()
    return token?.kind === 'operator' && token.operator === operator
  }

  const parseOr = (): ConditionNode => {
    let left = parseAnd()
    while (isOperator('||')) {
      position += 1
      left = { kind: 'or', left, right: parseAnd() }
    }
    return left
  }
  const parseAnd = (): ConditionNode => {
    let left = parseUnary()
    while (isOperator('&&')) {
      position += 1
      left = { kind: 'and', left, right: parseUnary() }
    }
    return left
  }
  const parseUnary = (): ConditionNode => {
    if (isOperator('!')) {
      position += 1
      return { kind: 'not', operand: parseUnary() }
    }
    return parseCompare()
  }
  const parseCompare = (): ConditionNode => {
    const left = parsePrimary()
    const token = peek()
    if (token?.kind === 'operator' && COMPARISONS.has(token.operator)) {
      position += 1
      const right = parsePrimary()
      const next = peek()
      if (next?.kind === 'operator' && COMPARISONS.has(next.operator)) {
        fail('comparisons do not chain; use && between them', next)
      }
      return { kind: 'compare', operator: token.operator as ComparisonOperator, left, right }
    }
    return left
  }
  const parsePrimary = (): ConditionNode => {
    const token = peek()
    if (!token) return fail('expected a value but the condition ended')
    if (token.kind === 'paren' && token.paren === '(') {
      position += 1
      const inner = parseOr()
      const close = peek()
      if (close?.kind !== 'paren' || close.paren !== ')') fail('expected ")"')
      position += 1
      return inner
    }
    if (token.kind === 'reference') {
      position += 1
      return { kind: 'reference', reference: token.reference }
    }
    if (token.kind === 'literal') {
      position += 1
      return { kind: 'literal', value: token.value }
    }
    const shown = token.kind === 'operator' ? token.operator : token.paren
    return fail(`expected a value, found "${shown}"`)
  }

  if (tokens.length === 0) fail('the condition is empty')
  const node = parseOr()
  if (position < tokens.length) fail('unexpected token after a complete condition')
  return node
}

/**
 * Every reference a condition reads, in order (validation checks each is in scope).
 *
 * @example
 * conditionReferences(parseCondition('{{a}} > 1 || {{b.c}}')).map((reference) => reference.root) // ['a', 'b']
 */
export function conditionReferences(node: ConditionNode): TemplateReference[] {
  switch (node.kind) {
    case 'literal':
      return []
    case 'reference':
      return [node.reference]
    case 'not':
      return conditionReferences(node.operand)
    default:
      return [...conditionReferences(node.left), ...conditionReferences(node.right)]
  }
}
