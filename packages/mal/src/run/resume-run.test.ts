import { fileURLToPath } from 'node:url'
import { createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { agentRecord, reviewerWallet } from '../__fixtures__/agents'
import { runTsx } from '../__fixtures__/run-tsx'
import { resumeRun } from './resume-run'
import type { RunResult } from './run-options'
import { runPlan } from './run-plan'

const agents = [
  agentRecord({ id: 'reviewer', wallet: reviewerWallet, name: 'Reviewer', type: 'reviewer' }),
]
const plan = `
inputs: { topic: string }
budget: { calls: 10 }
steps:
  - op: models_call
    saveAs: draft
    model: offline:default
    prompt: "[[answer:draft about {{topic}}]]"
  - op: scratch
    action: write
    key: notes
    value: "{{draft}}"
  - op: if
    cond: "{{topic}} != ''"
    then:
      - op: loop
        while: "{{approval}} != 'yes'"
        maxIters: 3
        do:
          - op: ask_user
            saveAs: approval
            question: "Approve {{draft}}?"
    else:
      # Every path saves approval before the delegate reads it (the plan check requires it).
      - op: models_call
        saveAs: approval
        model: offline:default
        prompt: "[[answer:no topic, nothing to approve]]"
  - op: delegate
    saveAs: final
    agentWallet: "${reviewerWallet}"
    prompt: "Finalize {{draft}} ({{approval}})"
  - op: scratch
    action: read
    key: notes
    saveAs: notes
  - op: stop
    output: { final: "{{final}}", notes: "{{notes}}", approval: "{{approval}}" }
`

describe('resumeRun', { timeout: 120_000 }, () => {
  it('pauses at ask_user with a JSON state and resumes in a fresh interpreter, then in another process', async () => {
    const registry = createStaticRegistry(agents)
    const first = await runPlan(plan, { registry, inputs: { topic: 'refunds' } })
    expect(first.status).toBe('paused')
    expect(first.question).toBe('Approve draft about refunds?')
    expect(first.events.map((event) => event.type).slice(-2)).toEqual(['run-pause', 'run-finish'])
    expect(first.events.at(-2)).toMatchObject({
      path: 'steps[2].then[0].do[0]',
      saveAs: 'approval',
    })
    expect(first.state?.cursor).toEqual({
      index: 2,
      branch: 'then',
      inner: { index: 0, iteration: 1, inner: { index: 0 } },
    })
    const saved = JSON.stringify(first.state)

    // Same process, new interpreter and options: "no" keeps the loop going, so it asks again.
    const second = await resumeRun(JSON.parse(saved), 'no', {
      registry: createStaticRegistry(agents),
    })
    expect(second.status).toBe('paused')
    expect(second.events[0]).toMatchObject({ type: 'run-start', resumed: true })
    expect(second.events[0]?.sequence).toBe(first.events.length)
    expect(second.events[1]).toMatchObject({
      type: 'step-finish',
      path: 'steps[2].then[0].do[0]',
      value: 'no',
      iteration: 1,
    })
    expect(second.state?.cursor.inner).toMatchObject({ iteration: 2 })

    // Another process, with nothing but the JSON state: "yes" ends the loop and the run.
    const child = await runTsx(
      fileURLToPath(new URL('../__fixtures__/resume-in-child.ts', import.meta.url)),
      ['yes', JSON.stringify(agents)],
      { stdin: JSON.stringify(second.state) },
    )
    expect(child.stderr).toBe('')
    expect(child.code).toBe(0)
    const third = JSON.parse(child.stdout) as RunResult
    expect(third.status).toBe('done')
    expect(third.output).toEqual({
      final: expect.stringMatching(
        /^Reviewer \(reviewer\): .*Finalize draft about refunds \(yes\)/,
      ),
      notes: 'draft about refunds',
      approval: 'yes',
    })
    // Spend carries across the pauses: one direct model call, one agent run.
    expect(third.usage.calls).toBe(2)
    expect(third.usageByWallet.coordinator?.calls).toBe(1)
    expect(third.usageByWallet[reviewerWallet]?.calls).toBe(1)
  })

  it('keeps the plan budget across a pause: a resumed run has only what is left', async () => {
    const registry = createStaticRegistry(agents)
    const paused = await runPlan(
      {
        budget: { calls: 1 },
        steps: [
          { op: 'models_call', saveAs: 'a', model: 'offline:x', prompt: 'one' },
          { op: 'ask_user', saveAs: 'go', question: 'again?' },
          { op: 'models_call', saveAs: 'b', model: 'offline:x', prompt: 'two' },
        ],
      },
      { registry },
    )
    const resumed = await resumeRun(paused.state, 'yes', { registry })
    expect(resumed.status).toBe('failed')
    expect(resumed.error).toMatchObject({ code: 'BUDGET_EXCEEDED', path: 'steps[2]' })
    expect(resumed.usage.calls).toBe(1)
  })

  it('refuses a state that is not a paused run', async () => {
    const registry = createStaticRegistry(agents)
    await expect(resumeRun({ version: 1 }, 'x', { registry })).rejects.toMatchObject({
      code: 'RUN_STATE_INVALID',
    })
    await expect(resumeRun('not json', 'x', { registry })).rejects.toMatchObject({
      code: 'RUN_STATE_INVALID',
    })
  })
})
