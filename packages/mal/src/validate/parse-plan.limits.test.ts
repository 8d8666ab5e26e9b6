import { describe, expect, it } from 'vitest'
import { safeParsePlan } from './parse-plan'

function nestedIfs(depth: number): string {
  const open = '{"op":"if","cond":"true","then":['.repeat(depth)
  return `{"steps":[${open}{"op":"stop","output":"x"}${']}'.repeat(depth)}]}`
}

function nestedIfsObject(depth: number): object {
  let step: object = { op: 'stop', output: 'x' }
  // biome-ignore lint/suspicious/noThenProperty: `then` is the if step's field
  for (let index = 0; index < depth; index++) step = { op: 'if', cond: 'true', then: [step] }
  return { steps: [step] }
}

describe('safeParsePlan limits', () => {
  it('returns an error naming maxAliases, with its position, for a YAML alias bomb', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for (let index = 1; index < 10; index++) {
      const name = String.fromCharCode(97 + index)
      const previous = `*${String.fromCharCode(96 + index)}`
      lines.push(`${name}: &${name} [${Array(9).fill(previous).join(',')}]`)
    }
    lines.push('steps: [{ op: stop, output: "x" }]')
    const result = safeParsePlan(lines.join('\n'))
    expect(result.success).toBe(false)
    if (result.success) return
    expect(result.error.code).toBe('PLAN_INVALID')
    expect(result.error.issues[0]).toMatchObject({ line: 2, message: /limit maxAliases/ })
  })

  it('returns an error naming maxDepth, with the path, for 5000 nested ifs (object and text)', () => {
    for (const source of [nestedIfsObject(5000), nestedIfs(5000)]) {
      const result = safeParsePlan(source)
      expect(result.success).toBe(false)
      if (result.success) continue
      expect(result.error.issues[0]?.message).toMatch(/limit maxDepth|nest/i)
    }
    const object = safeParsePlan(nestedIfsObject(5000))
    if (!object.success) {
      expect(object.error.issues[0]?.path).toMatch(/^steps\[0\]\.then\[0\]/)
    }
  })

  it('still accepts a plan nested within the limit', () => {
    expect(safeParsePlan(nestedIfsObject(30)).success).toBe(true)
  })

  it('returns an error naming maxSteps and maxBytes past them', () => {
    const steps = Array.from({ length: 11 }, () => ({ op: 'stop', output: 'x' }))
    const many = safeParsePlan({ steps }, { limits: { maxSteps: 10 } })
    expect(many.success).toBe(false)
    if (!many.success)
      expect(many.error.issues[0]).toMatchObject({ path: 'steps[10]', message: /limit maxSteps/ })
    const large = safeParsePlan(`steps: [{ op: stop, output: "${'x'.repeat(100)}" }]`, {
      limits: { maxBytes: 50 },
    })
    expect(large.success).toBe(false)
    if (!large.success) expect(large.error.issues[0]?.message).toMatch(/limit maxBytes/)
  })

  it('refuses three nested 10000-iteration loops, naming the outer loop, its line and maxRunSteps', () => {
    const text = [
      'name: freeze',
      'steps:',
      '  - op: scratch',
      '    action: write',
      '    key: before',
      '    value: 1',
      '  - op: loop',
      '    while: "true"',
      '    maxIters: 10000',
      '    do:',
      '      - op: loop',
      '        while: "true"',
      '        maxIters: 10000',
      '        do:',
      '          - op: loop',
      '            while: "true"',
      '            maxIters: 10000',
      '            do:',
      '              - { op: scratch, action: write, key: k, value: v }',
    ].join('\n')
    const result = safeParsePlan(text)
    expect(result.success).toBe(false)
    if (result.success) return
    expect(result.error.code).toBe('PLAN_INVALID')
    expect(result.error.issues).toEqual([
      {
        path: 'steps[1]',
        line: 7,
        column: 5,
        message: expect.stringMatching(/maxIters 10000 .*cap of 50000 steps \(limit maxRunSteps\)/),
      },
    ])
  })

  it('refuses loops that pass the cap only together, naming the largest; a lower cap is given', () => {
    const loop = (maxIters: number) => ({
      op: 'loop',
      while: 'true',
      maxIters,
      do: [{ op: 'scratch', action: 'write', key: 'k', value: 'v' }],
    })
    // biome-ignore lint/suspicious/noThenProperty: `then` is the if step's field
    const plan = { steps: [{ op: 'if', cond: 'true', then: [loop(30), loop(40)] }] }
    expect(safeParsePlan(plan).success).toBe(true)
    const result = safeParsePlan(plan, { limits: { maxRunSteps: 60 } })
    expect(result.success).toBe(false)
    if (result.success) return
    expect(result.error.issues[0]).toMatchObject({
      path: 'steps[0].then[1]',
      message: expect.stringMatching(/with the rest of the plan it may run 73 steps.*maxRunSteps/),
    })
  })

  it('counts every branch of a fanout and a loop nested in one', () => {
    const branch = (id: string) => ({
      id,
      steps: [
        {
          op: 'loop',
          while: 'true',
          maxIters: 10_000,
          do: [{ op: 'scratch', action: 'write', key: 'k', value: 'v' }],
        },
      ],
    })
    const plan = { steps: [{ op: 'fanout', saveAs: 'all', branches: [branch('a'), branch('b')] }] }
    expect(safeParsePlan(plan).success).toBe(true)
    const six = {
      steps: [{ ...plan.steps[0], branches: ['a', 'b', 'c', 'd', 'e', 'f'].map(branch) }],
    }
    const result = safeParsePlan(six)
    expect(result.success).toBe(false)
    if (!result.success) expect(result.error.issues[0]?.path).toBe('steps[0].branches[0].steps[0]')
  })

  it('never throws, whatever it is given', () => {
    const cyclic: Record<string, unknown> = { steps: [] }
    ;(cyclic.steps as unknown[]).push(cyclic)
    for (const source of [cyclic, nestedIfs(20_000), '\u0000', '[[[[[', { steps: [null] }]) {
      expect(() => safeParsePlan(source as object)).not.toThrow()
      expect(safeParsePlan(source as object).success).toBe(false)
    }
  })
})

describe('parsePlan', () => {
  it('freezes the plan it returns, but not the objects the caller passed in', () => {
    const output = { answer: 'x' }
    const result = safeParsePlan({ steps: [{ op: 'stop', output }] })
    expect(result.success).toBe(true)
    if (!result.success) return
    expect(Object.isFrozen(result.plan.steps[0])).toBe(true)
    expect(Object.isFrozen(output)).toBe(false)
  })
})
