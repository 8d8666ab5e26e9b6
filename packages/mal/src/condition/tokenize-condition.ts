import { parseTemplate, type TemplateReference } from '../template'
import { ConditionSyntaxError } from './condition-errors'

export type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>='

export type ConditionToken = { offset: number } & (
  | { kind: 'reference'; reference: TemplateReference }
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'operator'; operator: ComparisonOperator | '&&' | '||' | '!' }
  | { kind: 'paren'; paren: '(' | ')' }
)

const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!'] as const

/**
 * Splits a condition into tokens: `{{references}}`, numbers, quoted strings, `true`,
 * `false`, `null`, comparison and logical operators, and parentheses.
 *
 * @example
 * tokenizeCondition('{{score}} >= 3').map((token) => token.kind) // ['reference', 'operator', 'literal']
 */
export function tokenizeCondition(condition: string): ConditionToken[] {
  const tokens: ConditionToken[] = []
  const fail = (offset: number, reason: string): never => {
    throw new ConditionSyntaxError({ condition, offset, reason })
  }
  let index = 0
  while (index < condition.length) {
    const rest = condition.slice(index)
    const space = /^\s+/.exec(rest)
    if (space) {
      index += space[0].length
      continue
    }
    if (rest.startsWith('{{')) {
      const close = rest.indexOf('}}')
      if (close === -1) fail(index, '"{{" is never closed')
      const [part] = parseTemplate(rest.slice(0, close + 2))
      if (part?.kind !== 'reference') fail(index, 'expected a reference')
      if (part?.kind === 'reference') {
        tokens.push({ kind: 'reference', reference: { ...part, offset: index }, offset: index })
      }
      index += close + 2
      continue
    }
    if (rest[0] === '(' || rest[0] === ')') {
      tokens.push({ kind: 'paren', paren: rest[0], offset: index })
      index += 1
      continue
    }
    const operator = OPERATORS.find((candidate) => rest.startsWith(candidate))
    if (operator) {
      tokens.push({ kind: 'operator', operator, offset: index })
      index += operator.length
      continue
    }
    const number = /^-?\d+(?:\.\d+)?/.exec(rest)
    if (number) {
      tokens.push({ kind: 'literal', value: Number(number[0]), offset: index })
      index += number[0].length
      continue
    }
    const quote = rest[0]
    if (quote === '"' || quote === "'") {
      const end = rest.indexOf(quote, 1)
      if (end === -1) fail(index, `string starting with ${quote} is never closed`)
      tokens.push({ kind: 'literal', value: rest.slice(1, end), offset: index })
      index += end + 1
      continue
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest)?.[0]
    if (word === 'true' || word === 'false' || word === 'null') {
      const value = word === 'null' ? null : word === 'true'
      tokens.push({ kind: 'literal', value, offset: index })
      index += word.length
      continue
    }
    if (word) fail(index, `unknown word "${word}" (write references as {{${word}}})`)
    fail(index, `unexpected "${rest[0]}"`)
  }
  return tokens
}
