import { createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { runPlan } from '../run'
import { safeParsePlan } from './parse-plan'

const issuesOf = (source: string) => {
  const result = safeParsePlan(source)
  return result.success ? [] : result.error.issues
}

// The plan a person wrote: an approval asked for in one branch only, read by the stop.
const approvalInOneBranch = `inputs: { risky: string }
steps:
  - op: if
    cond: "{{risky}} == 'yes'"
    then:
      - op: ask_user
        saveAs: approve
        question: "Go ahead?"
  - op: stop
    output: "{{approve}}"
`

describe('checkPlan: values saved on every path', () => {
  it('reports a template reading a value saved in one branch of an if, at its line and column', () => {
    const issues = issuesOf(approvalInOneBranch)
    expect(issues).toEqual([
      {
        path: 'steps[1].output',
        line: 10,
        column: 13,
        message: expect.stringContaining(
          '{{approve}} reads "approve", which may have no value here: only the then branch of the if at steps[0] saves it',
        ),
      },
    ])
    expect(issues[0]?.message).toMatch(/TEMPLATE_UNRESOLVED/)
  })

  it('accepts a value saved in both branches, or in one branch whose other one stops', () => {
    const both = `steps:
  - op: if
    cond: "true"
    then:
      - { op: models_call, saveAs: pick, model: "offline:a", prompt: a }
    else:
      - { op: models_call, saveAs: pick, model: "offline:a", prompt: b }
  - { op: stop, output: "{{pick}}" }
`
    expect(issuesOf(both)).toEqual([])
    const otherStops = `steps:
  - op: if
    cond: "true"
    then:
      - { op: models_call, saveAs: pick, model: "offline:a", prompt: a }
    else:
      - { op: stop, output: "declined" }
  - { op: stop, output: "{{pick}}" }
`
    expect(issuesOf(otherStops)).toEqual([])
  })

  it('reports a value saved under a nested if on one path of an outer branch', () => {
    const nested = `steps:
  - op: if
    cond: "true"
    then:
      - op: if
        cond: "false"
        then:
          - { op: models_call, saveAs: pick, model: "offline:a", prompt: a }
    else:
      - { op: models_call, saveAs: pick, model: "offline:a", prompt: b }
  - { op: models_call, saveAs: echo, model: "offline:a", prompt: "{{pick}}" }
`
    expect(issuesOf(nested)).toEqual([
      expect.objectContaining({
        path: 'steps[1].prompt',
        line: 11,
        message: expect.stringContaining('the if at steps[0] does not save it on every path'),
      }),
    ])
  })

  it('reports a value saved only in a loop that may run zero times', () => {
    const zeroTimes = `inputs: { rounds: number }
steps:
  - op: loop
    while: "{{rounds}} > 0"
    maxIters: 3
    do:
      - { op: models_call, saveAs: draft, model: "offline:a", prompt: x }
  - { op: stop, output: "{{draft}}" }
`
    expect(issuesOf(zeroTimes)).toEqual([
      expect.objectContaining({
        path: 'steps[1].output',
        line: 8,
        message: expect.stringContaining('the loop at steps[0], which may run zero times'),
      }),
    ])
  })

  it('accepts a loop whose while reads only what its body saves (it runs at least once)', () => {
    const doWhile = `steps:
  - op: loop
    while: "{{review.approved}} != true"
    maxIters: 3
    do:
      - { op: models_call, saveAs: draft, model: "offline:a", prompt: x }
      - { op: models_call, saveAs: review, model: "offline:a", prompt: "{{draft}}" }
  - { op: stop, output: "{{draft}}" }
`
    expect(issuesOf(doWhile)).toEqual([])
    // The same loop with a while that starts false never runs its body.
    expect(issuesOf(doWhile.replace('!= true', '== true'))).toEqual([
      expect.objectContaining({ path: 'steps[1].output' }),
    ])
  })

  it('lets conditions read a value that may be missing (it reads as null)', () => {
    const guarded = `steps:
  - op: if
    cond: "true"
    then:
      - { op: models_call, saveAs: pick, model: "offline:a", prompt: a }
  - op: if
    cond: "{{pick}} != null"
    then:
      - { op: stop, output: "chosen" }
  - { op: synthesize, saveAs: s, from: [pick], instruction: merge }
  - { op: stop, output: "{{s}}" }
`
    expect(issuesOf(guarded)).toEqual([])
  })

  it('keeps a value saved inside a fanout branch to that branch, whatever paths it has', () => {
    const fanout = `steps:
  - op: fanout
    saveAs: views
    branches:
      - id: a
        steps:
          - op: if
            cond: "true"
            then:
              - { op: models_call, saveAs: va, model: "offline:a", prompt: a }
          - { op: stop, output: "{{va}}" }
  - { op: stop, output: "{{views.a}}" }
`
    expect(issuesOf(fanout)).toEqual([
      expect.objectContaining({
        path: 'steps[0].branches[0].steps[1].output',
        message: expect.stringContaining(
          'only the then branch of the if at steps[0].branches[0].steps[0]',
        ),
      }),
    ])
  })

  it('runs a plan it accepts without TEMPLATE_UNRESOLVED on either branch', async () => {
    const plan = `inputs: { risky: string }
steps:
  - op: if
    cond: "{{risky}} == 'yes'"
    then:
      - { op: models_call, saveAs: note, model: "offline:a", prompt: careful }
    else:
      - { op: models_call, saveAs: note, model: "offline:a", prompt: fine }
  - { op: stop, output: "{{note}}" }
`
    const checked = safeParsePlan(plan)
    expect(checked.success).toBe(true)
    if (!checked.success) return
    for (const risky of ['yes', 'no']) {
      const result = await runPlan(checked.plan, {
        inputs: { risky },
        registry: createStaticRegistry([]),
      })
      expect(result.status).toBe('done')
    }
  })
})
