import { createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { resumeRun } from './resume-run'
import { createMemoryResumeStore } from './resume-store'
import { runPlan } from './run-plan'
import type { RunState } from './run-state'

const registry = createStaticRegistry([])
const secret = 'a secret of at least sixteen characters'
const plan = {
  inputs: { topic: { type: 'string' } },
  budget: { calls: 1 },
  steps: [
    { op: 'models_call', saveAs: 'draft', model: 'offline:x', prompt: '[[answer:{{topic}}]]' },
    { op: 'ask_user', saveAs: 'approval', question: 'Ship {{draft}}?' },
    { op: 'models_call', saveAs: 'final', model: 'offline:x', prompt: 'final' },
    { op: 'stop', output: { draft: '{{draft}}', approval: '{{approval}}' } },
  ],
}

async function paused(options: { secret?: string } = {}): Promise<RunState> {
  const result = await runPlan(plan, { registry, inputs: { topic: 'refunds' }, ...options })
  expect(result.status).toBe('paused')
  return JSON.parse(JSON.stringify(result.state)) as RunState
}

describe('resumeRun state checks', () => {
  it('refuses a cursor moved before the pending ask_user (no finished step runs again)', async () => {
    const state = await paused()
    await expect(
      resumeRun({ ...state, cursor: { index: 0 } }, 'yes', { registry }),
    ).rejects.toMatchObject({ code: 'RUN_STATE_INVALID' })
  })

  it('refuses a cursor moved onto the stop, with forged values', async () => {
    const state = await paused()
    const forged = { ...state, cursor: { index: 3 }, values: { draft: 'forged', approval: 'x' } }
    await expect(resumeRun(forged, 'yes', { registry })).rejects.toMatchObject({
      code: 'RUN_STATE_INVALID',
    })
  })

  it('refuses values under names no step saves', async () => {
    const state = await paused()
    await expect(
      resumeRun({ ...state, values: { ...state.values, injected: 1 } }, 'yes', { registry }),
    ).rejects.toMatchObject({ code: 'RUN_STATE_INVALID', shortMessage: /injected/ })
  })

  it('checks the inputs again: an undeclared input is refused', async () => {
    const state = await paused()
    await expect(
      resumeRun({ ...state, inputs: { ...state.inputs, extra: 'x' } }, 'yes', { registry }),
    ).rejects.toMatchObject({ code: 'RUN_STATE_INVALID', shortMessage: /extra/ })
  })

  it('refuses usage reset below what its wallets spent', async () => {
    const state = await paused()
    await expect(
      resumeRun({ ...state, usage: { calls: 0, tokens: 0, costUsd: 0 } }, 'yes', { registry }),
    ).rejects.toMatchObject({ code: 'RUN_STATE_INVALID' })
  })

  it('resumes a state once: the second resume of one state is refused', async () => {
    const state = await paused()
    const resumed = createMemoryResumeStore()
    const first = await resumeRun(state, 'yes', { registry, resumed, budget: undefined })
    expect(first.status).toBe('failed') // the plan's one call was spent before the pause
    await expect(resumeRun(state, 'yes', { registry, resumed })).rejects.toMatchObject({
      code: 'RUN_STATE_INVALID',
      shortMessage: /already resumed/,
    })
  })

  it('does not burn a state on a refused attempt', async () => {
    const state = await paused()
    const resumed = createMemoryResumeStore()
    await expect(resumeRun(state, undefined, { registry, resumed })).rejects.toMatchObject({
      code: 'RUN_STATE_INVALID',
    })
    expect((await resumeRun(state, 'yes', { registry, resumed })).runId).toBe(state.runId)
  })
})

describe('resumeRun sealed states', () => {
  it('resumes a sealed state, keeping the answer and the spend', async () => {
    const state = await paused({ secret })
    expect(state.seal).toEqual(expect.any(String))
    const result = await resumeRun(state, 'yes', { registry, secret })
    // The plan allows one call, spent before the pause: the last model call is refused.
    expect(result).toMatchObject({ status: 'failed', error: { code: 'BUDGET_EXCEEDED' } })
    expect(result.values.approval).toBe('yes')
    expect(result.usage.calls).toBe(1)
  })

  it('refuses a sealed state whose usage was reset and whose plan budget was raised', async () => {
    const state = await paused({ secret })
    const changed = {
      ...state,
      usage: { calls: 0, tokens: 0, costUsd: 0 },
      usageByWallet: {},
      plan: { ...state.plan, budget: { calls: 100 } },
    }
    await expect(resumeRun(changed, 'yes', { registry, secret })).rejects.toMatchObject({
      code: 'RUN_STATE_INVALID',
      shortMessage: /changed after it was sealed/,
    })
  })

  it('refuses an unsealed state when a secret is required, and a seal made with another secret', async () => {
    const state = await paused()
    await expect(resumeRun(state, 'yes', { registry, secret })).rejects.toMatchObject({
      code: 'RUN_STATE_INVALID',
      shortMessage: /not sealed/,
    })
    const other = await paused({ secret: 'another secret, also long enough' })
    await expect(resumeRun(other, 'yes', { registry, secret })).rejects.toMatchObject({
      code: 'RUN_STATE_INVALID',
    })
  })
})
