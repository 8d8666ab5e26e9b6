import { createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { parsePlan } from '../validate'
import { runPlan } from './run-plan'

const registry = createStaticRegistry([])

function loopPlan(maxIters: number) {
  return {
    steps: [
      {
        op: 'loop',
        while: 'true',
        maxIters,
        do: [{ op: 'scratch', action: 'write', key: 'k', value: 'v' }],
      },
      { op: 'stop', output: 'done' },
    ],
  }
}

describe('runPlan step limit and event-loop turns', () => {
  it('gives the event loop a turn while a long loop of synchronous steps runs', async () => {
    let finished = false
    const firedWhileRunning: boolean[] = []
    const run = runPlan(loopPlan(10_000), { registry })
    // A timer set once the run is under way must fire before the run ends.
    const timer = setInterval(() => firedWhileRunning.push(!finished), 1)
    const result = await run
    finished = true
    clearInterval(timer)
    expect(result.status).toBe('done')
    expect(firedWhileRunning.filter(Boolean).length).toBeGreaterThan(0)
  })

  it('lets a cancel from a timer end a long loop while it runs', async () => {
    const controller = new AbortController()
    const run = runPlan(loopPlan(10_000), {
      registry,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'step-start' && event.iteration === 1) {
          setTimeout(() => controller.abort(), 0)
        }
      },
    })
    const result = await run
    expect(result.status).toBe('cancelled')
    const finishes = result.events.filter((event) => event.type === 'step-finish').length
    expect(finishes).toBeLessThan(10_000)
  })

  it('fails the run with STEP_LIMIT_EXCEEDED, naming the cap, past maxRunSteps', async () => {
    // Validated with a larger cap, run with a smaller one: the run-wide cap holds on its own.
    const plan = parsePlan(loopPlan(100), { limits: { maxRunSteps: 1000 } })
    const result = await runPlan(plan, { registry, maxRunSteps: 50 })
    expect(result.status).toBe('failed')
    expect(result.error).toMatchObject({
      code: 'STEP_LIMIT_EXCEEDED',
      message: expect.stringMatching(/more than 50 steps.*maxRunSteps/),
    })
    const finishes = result.events.filter(
      (event) => event.type === 'step-finish' && event.op === 'scratch',
    ).length
    expect(finishes).toBe(49)
  })

  it('refuses, before it runs, a plan whose worst case is past maxRunSteps', async () => {
    await expect(runPlan(loopPlan(100), { registry, maxRunSteps: 50 })).rejects.toMatchObject({
      code: 'PLAN_INVALID',
      issues: [{ path: 'steps[0]', message: expect.stringMatching(/maxRunSteps/) }],
    })
  })

  it('runs a plan within the cap to its end', async () => {
    const result = await runPlan(loopPlan(48), { registry, maxRunSteps: 50 })
    expect(result.status).toBe('done')
  })
})
