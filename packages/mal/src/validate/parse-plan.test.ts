import { describe, expect, it } from 'vitest'
import { seedPlan as seed } from '../__fixtures__/seed-plan'
import { StepSchema } from '../plan'
import { parsePlan, safeParsePlan } from './parse-plan'
import { PlanValidationError } from './plan-validation-error'

const WALLET = '0x1111111111111111111111111111111111111111'

function issuesOf(source: string | object, options = {}) {
  const result = safeParsePlan(source, options)
  if (result.success) throw new Error('expected the plan to be refused')
  return result.error.issues
}

describe('parsePlan', () => {
  it('accepts the seed plan and normalizes its budget and defaults', () => {
    const plan = parsePlan(seed, { requireOutput: true })
    expect(plan.name).toBe('risk-review')
    expect(plan.budget).toEqual({ maxWallMs: 300_000, costUsd: 0.5 })
    expect(plan.inputs).toEqual({ request: { type: 'string' } })
    expect(plan.steps[0]).toMatchObject({ op: 'delegate', budget: { maxWallMs: 120_000 } })
  })

  it('accepts the same plan as JSON text and as an object', () => {
    const object = {
      inputs: { request: 'string' },
      steps: [
        { op: 'delegate', saveAs: 'a', agentWallet: WALLET, prompt: '{{inputs.request}}' },
        { op: 'stop', output: '{{a}}' },
      ],
    }
    expect(parsePlan(JSON.stringify(object, null, 2)).steps).toHaveLength(2)
    expect(parsePlan(object).steps).toHaveLength(2)
  })

  it('reports every problem at once, each with its path, line and column', () => {
    const source = `inputs: { request: string }
budget: { cost: 0.5, calls: 4 }
steps:
  - op: task
    saveAs: review
    agentWallet: "0x12"
    model: openai:gpt-4o
    prompt: "{{inputs.nope}} and {{later}}"
    budget: { cost: 2, calls: 3 }
  - op: loop
    while: "{{review}} != 'ok'"
    do:
      - op: models_call
        saveAs: review
        model: offline:default
        prompt: again
  - op: fanout
    saveAs: parts
    branches:
      - id: a
        steps:
          - op: ask_user
            saveAs: answer
            question: "why?"
          - op: bogus
  - op: stop
    output: "{{answer}}"
    colour: red
`
    const issues = issuesOf(source)
    const byPath = (path: string) => issues.filter((issue) => issue.path === path)
    expect(byPath('steps[0].agentWallet')[0]).toMatchObject({ line: 6, column: 18 })
    expect(byPath('steps[0].agentWallet')[0]?.message).toMatch(/Malformed wallet "0x12"/)
    expect(byPath('steps[0].model')[0]).toMatchObject({ line: 7, column: 12 })
    expect(byPath('steps[0].model')[0]?.message).toMatch(/models_call/)
    expect(byPath('steps[0].prompt').map((issue) => issue.message)).toEqual([
      expect.stringMatching(/\{\{inputs.nope\}\} reads input "nope"/),
      expect.stringMatching(/\{\{later\}\} names "later"/),
    ])
    expect(byPath('steps[0].budget.cost')[0]).toMatchObject({ line: 9, column: 21 })
    expect(byPath('steps[0].budget.cost')[0]?.message).toMatch(/asks for 2 USD.*only 0.5/)
    expect(byPath('steps[0].budget.calls')).toEqual([])
    expect(byPath('steps[1].maxIters')[0]).toMatchObject({ line: 10, column: 5 })
    expect(byPath('steps[1].maxIters')[0]?.message).toMatch(/a loop needs maxIters/)
    expect(byPath('steps[1].do[0].saveAs')[0]).toMatchObject({
      line: 14,
      message: 'duplicate saveAs "review"',
    })
    expect(byPath('steps[2].branches[0].steps[0].op')[0]?.message).toMatch(/ask_user cannot run/)
    expect(byPath('steps[2].branches[0].steps[1].op')[0]).toMatchObject({ line: 25, column: 17 })
    expect(byPath('steps[2].branches[0].steps[1].op')[0]?.message).toMatch(/unknown op/)
    // A name saved inside a fanout branch stays there.
    expect(byPath('steps[3].output')[0]?.message).toMatch(/\{\{answer\}\} names "answer"/)
    expect(byPath('steps[3].colour')[0]).toMatchObject({
      line: 28,
      message: 'unknown field "colour"',
    })
    // Sorted by position.
    const lines = issues.map((issue) => issue.line ?? 0)
    expect(lines).toEqual([...lines].sort((a, b) => a - b))
  })

  it('names every op the schema accepts when an op is unknown', () => {
    const [issue] = issuesOf({ steps: [{ op: 'bogus' }] })
    const listed = issue?.message.replace(/^unknown op; expected one of /, '').split(', ')
    // zod keeps the discriminator's values of a discriminated union in propValues.
    const accepted = (StepSchema as unknown as { _zod: { propValues: { op: Set<string> } } })._zod
      .propValues.op
    expect(listed?.sort()).toEqual([...accepted].sort())
    expect(listed).toContain('conclave')
  })

  it('refuses a model on delegate and points to models_call', () => {
    const issues = issuesOf({
      steps: [
        { op: 'delegate', saveAs: 'a', agentWallet: WALLET, prompt: 'x', model: 'offline:x' },
      ],
    })
    expect(issues).toEqual([
      expect.objectContaining({
        path: 'steps[0].model',
        message: expect.stringMatching(/Use a models_call step/),
      }),
    ])
  })

  it('reports YAML syntax errors with their line and column', () => {
    const issues = issuesOf('steps:\n  - op: stop\n    output: "x\n  - op: [\n')
    expect(issues.length).toBeGreaterThan(0)
    expect(issues[0]).toMatchObject({ line: expect.any(Number), column: expect.any(Number) })
    const duplicate = issuesOf('steps: []\nsteps: []\n')
    expect(duplicate[0]).toMatchObject({
      line: 2,
      column: 1,
      message: expect.stringMatching(/unique/),
    })
  })

  it('checks template scope through if, loop and fanout blocks', () => {
    const plan = parsePlan({
      inputs: { topic: 'string' },
      steps: [
        {
          op: 'if',
          cond: '{{topic}} == "x"',
          // biome-ignore lint/suspicious/noThenProperty: MAL if steps have a then field
          then: [{ op: 'models_call', saveAs: 'pick', model: 'offline:a', prompt: 'a' }],
          else: [{ op: 'models_call', saveAs: 'pick', model: 'offline:a', prompt: 'b' }],
        },
        {
          op: 'loop',
          while: '{{draft}} != "done"',
          maxIters: 3,
          do: [{ op: 'models_call', saveAs: 'draft', model: 'offline:a', prompt: '{{pick}}' }],
        },
        {
          op: 'fanout',
          saveAs: 'views',
          branches: [
            {
              id: 'a',
              steps: [{ op: 'models_call', saveAs: 'va', model: 'offline:a', prompt: '{{draft}}' }],
            },
            {
              id: 'b',
              steps: [{ op: 'models_call', saveAs: 'vb', model: 'offline:a', prompt: '{{pick}}' }],
            },
          ],
        },
        { op: 'synthesize', saveAs: 'final', from: ['views', 'topic'], instruction: 'merge' },
        { op: 'stop', output: { text: '{{final}}', first: '{{views.a}}' } },
      ],
    })
    expect(plan.steps).toHaveLength(5)
    const issues = issuesOf({
      steps: [
        {
          op: 'fanout',
          saveAs: 'views',
          branches: [
            {
              id: 'a',
              steps: [{ op: 'models_call', saveAs: 'va', model: 'offline:a', prompt: 'x' }],
            },
            {
              id: 'a',
              steps: [{ op: 'models_call', saveAs: 'vb', model: 'offline:a', prompt: '{{va}}' }],
            },
          ],
        },
        { op: 'synthesize', saveAs: 's', from: ['va'], instruction: 'merge' },
      ],
    })
    expect(issues.map((issue) => issue.path)).toEqual([
      'steps[0].branches[1].id',
      'steps[0].branches[1].steps[0].prompt',
      'steps[1].from[0]',
    ])
  })

  it('refuses a plan with no reachable stop when an output is required', () => {
    const noStop = { steps: [{ op: 'models_call', saveAs: 'a', model: 'offline:a', prompt: 'x' }] }
    expect(safeParsePlan(noStop).success).toBe(true)
    expect(issuesOf(noStop, { requireOutput: true })[0]?.message).toMatch(/no reachable stop/)
    const onlyInFanout = {
      steps: [
        {
          op: 'fanout',
          saveAs: 'f',
          branches: [{ id: 'a', steps: [{ op: 'stop', output: 'x' }] }],
        },
      ],
    }
    expect(issuesOf(onlyInFanout, { requireOutput: true })[0]?.path).toBe('steps')
    // biome-ignore lint/suspicious/noThenProperty: MAL if steps have a then field
    const inIf = { steps: [{ op: 'if', cond: 'true', then: [{ op: 'stop', output: 'x' }] }] }
    expect(safeParsePlan(inIf, { requireOutput: true }).success).toBe(true)
  })

  it('refuses bad conditions, scratch steps without a key and duplicate input names', () => {
    const issues = issuesOf({
      inputs: { topic: 'string' },
      steps: [
        // biome-ignore lint/suspicious/noThenProperty: MAL if steps have a then field
        { op: 'if', cond: '{{topic}} ==', then: [] },
        { op: 'scratch', action: 'read' },
        { op: 'scratch', action: 'write', key: 'k' },
        { op: 'models_call', saveAs: 'topic', model: 'offline:a', prompt: 'x' },
        { op: 'models_call', saveAs: 'inputs', model: 'gpt-4o', prompt: 'x' },
      ],
    })
    expect(issues.map((issue) => [issue.path, issue.message])).toEqual([
      ['steps[0].cond', expect.stringMatching(/Malformed condition/)],
      ['steps[1].key', 'scratch read needs a key'],
      ['steps[2].value', 'scratch write needs a value'],
      ['steps[3].saveAs', '"topic" is already the name of an input'],
      ['steps[4].model', expect.stringMatching(/provider:model-id/)],
      ['steps[4].saveAs', '"inputs" is reserved for the plan inputs'],
    ])
  })

  it('names each field a step leaves out', () => {
    const issues = issuesOf({
      steps: [
        // biome-ignore lint/suspicious/noThenProperty: MAL if steps have a then field
        { op: 'if', then: [] },
        { op: 'ask_user', saveAs: 'q' },
        { op: 'delegate', saveAs: 'd', prompt: 'hi' },
        { op: 'stop' },
      ],
    })
    expect(issues.map((issue) => [issue.path, issue.message])).toEqual([
      ['steps[0].cond', '"cond" is missing (a string)'],
      ['steps[1].question', '"question" is missing (a string)'],
      ['steps[2].agentWallet', '"agentWallet" is missing (a string)'],
      ['steps[3].output', '"output" is missing'],
    ])
  })

  it('says what is wrong with a maxIters that is there but not a count of iterations', () => {
    const loop = (maxIters: unknown) => ({
      steps: [{ op: 'loop', while: 'true', maxIters, do: [{ op: 'stop', output: 'x' }] }],
    })
    const messageOf = (maxIters: unknown) => issuesOf(loop(maxIters))[0]
    expect(messageOf(0)).toMatchObject({ path: 'steps[0].maxIters', message: 'must be at least 1' })
    expect(messageOf(2.5)?.message).toBe('must be a whole number')
    expect(messageOf('3')?.message).toBe('must be a whole number')
    expect(messageOf(10_001)?.message).toBe('must be at most 10000')
  })

  it('throws a PlanValidationError with code PLAN_INVALID', () => {
    let error: unknown
    try {
      parsePlan('steps: 3', { sourceName: 'plan.yaml' })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(PlanValidationError)
    expect((error as PlanValidationError).code).toBe('PLAN_INVALID')
    expect((error as PlanValidationError).message).toMatch(/plan.yaml:1:8 steps: /)
  })
})
