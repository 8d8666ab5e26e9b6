import { describe, expect, it } from 'vitest'
import { ConditionSyntaxError, ConditionTypeError } from './condition-errors'
import { evaluateCondition } from './evaluate-condition'
import { parseCondition } from './parse-condition'

const scope = {
  inputs: { mode: 'strict' },
  values: { score: 4, label: 'ok', text: '7', list: [], review: { approved: false } },
}
const check = (condition: string) => evaluateCondition(condition, scope)

describe('evaluateCondition', () => {
  it('compares numbers, strings and numeric text', () => {
    expect(check('{{score}} >= 4')).toBe(true)
    expect(check('{{score}} < 4')).toBe(false)
    expect(check('{{text}} == 7')).toBe(true)
    expect(check('{{label}} == "ok" && {{inputs.mode}} != \'lax\'')).toBe(true)
    expect(check('{{label}} < "z"')).toBe(true)
  })

  it('gives && precedence over || and honours ! and parentheses', () => {
    expect(check('true || false && false')).toBe(true)
    expect(check('(true || false) && false')).toBe(false)
    expect(check('!{{review.approved}}')).toBe(true)
    expect(check('!({{score}} > 1 && {{label}} == "ok")')).toBe(false)
    expect(check('!!{{label}}')).toBe(true)
  })

  it('treats null, false, 0, "" and [] as false and reads a missing value as null', () => {
    expect(check('{{list}}')).toBe(false)
    expect(check('{{missing}} == null')).toBe(true)
    expect(check('{{missing.deeper}}')).toBe(false)
    expect(check('0 || ""')).toBe(false)
  })

  it('refuses to order values of different kinds', () => {
    expect(() => check('{{review}} > 1')).toThrow(ConditionTypeError)
  })
})

describe('parseCondition', () => {
  it('refuses malformed conditions with the offset of the problem', () => {
    const cases: [string, number][] = [
      ['{{a}} >', 7],
      ['({{a}}', 6],
      ['a == 1', 0],
      ['{{a}} == 1 == 2', 11],
      ['{{a}} {{b}}', 6],
      ['"open', 0],
      ['', 0],
      ['{{a}} ; 1', 6],
    ]
    for (const [condition, offset] of cases) {
      let error: unknown
      try {
        parseCondition(condition)
      } catch (caught) {
        error = caught
      }
      expect(error, condition).toBeInstanceOf(ConditionSyntaxError)
      expect((error as ConditionSyntaxError).offset, condition).toBe(offset)
    }
  })

  it('never evaluates code', () => {
    expect(() => parseCondition('process.exit(1)')).toThrow(/unknown word "process"/)
  })
})
