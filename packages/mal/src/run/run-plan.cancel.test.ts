import { createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { agentRecord, analystWallet } from '../__fixtures__/agents'
import { runPlan } from './run-plan'

const registry = createStaticRegistry([agentRecord({ persona: '[[sleep:20000]]' })])

describe('runPlan cancellation and time limits', () => {
  it('cancels a fanout in flight: every branch aborts, nothing more is charged, status cancelled', async () => {
    const controller = new AbortController()
    const pending = runPlan(
      {
        steps: [
          {
            op: 'fanout',
            saveAs: 'views',
            branches: [
              {
                id: 'slow-model',
                steps: [
                  { op: 'models_call', saveAs: 'a', model: 'offline:x', prompt: '[[sleep:20000]]' },
                ],
              },
              {
                id: 'slow-agent',
                steps: [{ op: 'delegate', saveAs: 'b', agentWallet: analystWallet, prompt: 'go' }],
              },
              {
                id: 'quick',
                steps: [
                  { op: 'models_call', saveAs: 'c', model: 'offline:x', prompt: '[[answer:ok]]' },
                ],
              },
              {
                id: 'slow-task',
                steps: [
                  {
                    op: 'task',
                    saveAs: 'd',
                    agentWallet: analystWallet,
                    prompt: 'go',
                    isolation: 'workspace',
                  },
                ],
              },
            ],
          },
          { op: 'models_call', saveAs: 'after', model: 'offline:x', prompt: 'never' },
        ],
      },
      {
        registry,
        signal: controller.signal,
        onEvent: (event) => {
          // Cancel once the quick branch is done and both slow ones are under way.
          if (event.type === 'step-finish' && event.saveAs === 'c')
            setTimeout(() => controller.abort(), 50)
        },
      },
    )
    const result = await pending
    expect(result.status).toBe('cancelled')
    expect(result.error?.code).toBe('CANCELLED')
    const errors = result.events
      .filter((event) => event.type === 'step-error')
      .map((event) => event.path)
    expect(errors).toEqual(
      expect.arrayContaining([
        'steps[0].branches[0].steps[0]',
        'steps[0].branches[1].steps[0]',
        'steps[0].branches[3].steps[0]',
        'steps[0]',
      ]),
    )
    expect(
      result.events.some((event) => event.type === 'step-start' && event.path === 'steps[1]'),
    ).toBe(false)
    // Only the quick call was charged.
    expect(result.usage.calls).toBe(1)
  })

  it('aborts a step that passes its maxWallMs and fails the run with BUDGET_EXCEEDED', async () => {
    for (const op of ['delegate', 'task', 'models_call'] as const) {
      const step =
        op === 'models_call'
          ? { op, saveAs: 'slow', model: 'offline:x', prompt: '[[sleep:20000]]' }
          : { op, saveAs: 'slow', agentWallet: analystWallet, prompt: 'take your time' }
      const result = await runPlan(
        { budget: { maxWallMs: 60_000 }, steps: [{ ...step, budget: { maxWallMs: 300 } }] },
        { registry },
      )
      expect({ op, status: result.status, error: result.error }).toMatchObject({
        op,
        status: 'failed',
        error: { code: 'BUDGET_EXCEEDED', path: 'steps[0]' },
      })
      expect(result.error?.message).toMatch(/300 ms deadline/)
      expect(result.usage.calls).toBe(0)
    }
  })

  it('stops a run that spends its whole budget and reports the budget error', async () => {
    const result = await runPlan(
      {
        budget: { calls: 2 },
        steps: [
          {
            op: 'loop',
            while: 'true',
            maxIters: 5,
            do: [{ op: 'models_call', saveAs: 'x', model: 'offline:x', prompt: 'again' }],
          },
        ],
      },
      { registry },
    )
    expect(result.status).toBe('failed')
    expect(result.error?.code).toBe('BUDGET_EXCEEDED')
    expect(result.usage.calls).toBe(2)
  })

  it('still runs steps that spend nothing once the budget is fully spent', async () => {
    const result = await runPlan(
      {
        budget: { calls: 1 },
        steps: [
          { op: 'models_call', saveAs: 'only', model: 'offline:x', prompt: '[[answer:the one]]' },
          { op: 'scratch', action: 'write', key: 'k', value: '{{only}}' },
          { op: 'stop', output: '{{only}}' },
        ],
      },
      { registry },
    )
    expect(result).toMatchObject({ status: 'done', output: 'the one' })
    const stop = result.events.find((event) => event.type === 'step-finish' && event.op === 'stop')
    expect(stop).toMatchObject({ usage: { calls: 0, tokens: 0, costUsd: 0 } })
  })
})
