import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'

// A run that would wait 3 × 10 s, on a server whose runs get 1 s unless their budget says.
const slowPlan = {
  steps: [0, 1, 2].map((index) => ({
    op: 'tool',
    toolName: 'wait',
    args: { ms: 10_000 },
    saveAs: `w${index}`,
  })),
}

describe('run limits from the settings', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp({ runMaxWallMs: 1000, runMaxSteps: 100 })
  })
  afterAll(async () => {
    await app.close()
  })

  async function finished(id: string) {
    return waitFor(
      async () => {
        const run = (await app.inject({ method: 'GET', url: `/api/v1/runs/${id}` })).json()
        return ['queued', 'running'].includes(run.status) ? undefined : run
      },
      { what: `run ${id} to finish`, timeoutMs: 60_000 },
    )
  }

  it('ends a run started without a budget at BATON_RUN_MAX_WALL_MS', async () => {
    const started = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: { plan: slowPlan },
    })
    expect(started.statusCode).toBe(202)
    const run = await finished(started.json().id)
    expect(run.status).toBe('failed')
    expect(run.error).toMatchObject({ code: 'BUDGET_EXCEEDED' })
    expect(run.steps).toHaveLength(0)
  })

  it('keeps the time limit a request budget gives (and other limits get the default)', async () => {
    const own = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: {
        plan: { steps: [{ op: 'tool', toolName: 'wait', args: { ms: 1500 }, saveAs: 'w' }] },
        budget: { seconds: 30 },
      },
    })
    expect((await finished(own.json().id)).status).toBe('done')
    const callsOnly = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: { plan: slowPlan, budget: { calls: 5 } },
    })
    expect((await finished(callsOnly.json().id)).error).toMatchObject({ code: 'BUDGET_EXCEEDED' })
  })

  it('refuses a plan past BATON_RUN_MAX_STEPS at POST /runs and /plans/validate, naming the loop', async () => {
    const plan = {
      steps: [
        {
          op: 'loop',
          while: 'true',
          maxIters: 200,
          do: [{ op: 'scratch', action: 'write', key: 'k', value: 'v' }],
        },
      ],
    }
    const started = await app.inject({ method: 'POST', url: '/api/v1/runs', payload: { plan } })
    expect(started.statusCode).toBe(400)
    expect(started.json().error).toMatchObject({
      code: 'PLAN_INVALID',
      details: {
        issues: [{ path: 'steps[0]', message: expect.stringMatching(/cap of 100 steps/) }],
      },
    })
    const validated = await app.inject({
      method: 'POST',
      url: '/api/v1/plans/validate',
      payload: { plan },
    })
    expect(validated.json()).toMatchObject({ ok: false, issues: [{ path: 'steps[0]' }] })
  })
})
