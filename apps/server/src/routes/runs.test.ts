import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends, databaseSettings } from '../__fixtures__/backends'
import { createTestApp } from '../__fixtures__/test-app'
import { seedDemo } from '../seed/seed-demo'

describe.each(backends)('on %s', (backend) => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp(await databaseSettings(backend))
    await seedDemo(app.baton)
  })
  afterAll(async () => {
    await app.close()
  })

  const analyst = '0x1111111111111111111111111111111111111111'

  async function start(payload: object) {
    return app.inject({ method: 'POST', url: '/api/v1/runs', payload })
  }

  async function finished(id: string) {
    return waitFor(
      async () => {
        const run = (await app.inject({ method: 'GET', url: `/api/v1/runs/${id}` })).json()
        return ['queued', 'running'].includes(run.status) ? undefined : run
      },
      { what: `run ${id} to finish` },
    )
  }

  describe('POST /api/v1/runs', () => {
    it('runs a YAML plan to its end: 202, then done with steps, usage by wallet and a tree', async () => {
      const plan = `name: hello
inputs: { request: string }
steps:
  - op: delegate
    saveAs: analysis
    agentWallet: "${analyst}"
    prompt: "Look at {{inputs.request}}"
  - op: stop
    output: "{{analysis}}"
`
      const response = await start({ plan, inputs: { request: 'the outage' } })
      expect(response.statusCode).toBe(202)
      const run = await finished(response.json().id)
      expect(run.status).toBe('done')
      expect(typeof run.output).toBe('string')
      expect(run.steps.map((step: { path: string }) => step.path)).toEqual(['steps[0]', 'steps[1]'])
      expect(run.steps[0].wallet).toBe(analyst)
      expect(run.usageByWallet[analyst].calls).toBeGreaterThan(0)
      expect(run.tree.children[0]).toMatchObject({
        path: 'steps[0]',
        op: 'delegate',
        wallet: analyst,
      })
      const spend = (await app.inject({ method: 'GET', url: '/api/v1/spend?by=run' })).json()
      expect(spend.spend.find((row: { run: string }) => row.run === run.id).calls).toBe(
        run.usageByWallet[analyst].calls,
      )
      const future = new Date(Date.now() + 60_000).toISOString()
      const none = (
        await app.inject({ method: 'GET', url: `/api/v1/spend?by=wallet&since=${future}` })
      ).json()
      expect(none.spend).toEqual([])
      expect(none.total).toEqual({ calls: 0, tokens: 0, costUsd: 0 })
      const bad = await app.inject({ method: 'GET', url: '/api/v1/spend?by=agent' })
      expect(bad.statusCode).toBe(400)
    })

    it('refuses a plan that does not validate with 400 and every error with line, column and path', async () => {
      const plan = `steps:
  - op: delegate
    agentWallet: "not-a-wallet"
  - op: nope
`
      const response = await start({ plan })
      expect(response.statusCode).toBe(400)
      const { error } = response.json()
      expect(error.code).toBe('PLAN_INVALID')
      expect(error.details.issues.length).toBeGreaterThanOrEqual(2)
      for (const issue of error.details.issues) {
        expect(issue).toMatchObject({
          path: expect.any(String),
          line: expect.any(Number),
          column: expect.any(Number),
        })
      }
      const list = (await app.inject({ method: 'GET', url: '/api/v1/runs?status=queued' })).json()
      expect(list.total).toBe(0)
    })

    it('refuses a body with a key it does not know (a misspelt budget) with 400 naming it, and starts nothing', async () => {
      const before = (await app.inject({ method: 'GET', url: '/api/v1/runs?limit=1' })).json()
      const response = await start({
        plan: { steps: [{ op: 'stop', output: 'ok' }] },
        budjet: { costUsd: 0.01 },
      })
      expect(response.statusCode).toBe(400)
      expect(response.json().error).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining('Unrecognized key: "budjet"'),
      })
      const after = (await app.inject({ method: 'GET', url: '/api/v1/runs?limit=1' })).json()
      expect(after.total).toBe(before.total)
    })

    it('accepts a JSON plan object and pages and filters the list by status', async () => {
      const response = await start({ plan: { steps: [{ op: 'stop', output: 'ok' }] } })
      await finished(response.json().id)
      const done = (
        await app.inject({ method: 'GET', url: '/api/v1/runs?status=done&limit=1' })
      ).json()
      expect(done.runs).toHaveLength(1)
      expect(done.total).toBeGreaterThanOrEqual(1)
      expect((await app.inject({ method: 'GET', url: '/api/v1/runs/nope' })).statusCode).toBe(404)
    })
  })

  describe('POST /api/v1/runs/:id/answer', () => {
    it('pauses at ask_user with the question, and continues with the answer', async () => {
      const plan = {
        steps: [
          { op: 'ask_user', question: 'Ship it?', saveAs: 'decision' },
          { op: 'stop', output: 'decided: {{decision}}' },
        ],
      }
      const { id } = (await start({ plan })).json()
      const paused = await finished(id)
      expect(paused).toMatchObject({ status: 'paused', question: 'Ship it?' })
      const refused = await app.inject({ method: 'POST', url: `/api/v1/runs/${id}/resume` })
      expect(refused.statusCode).toBe(409)
      const answered = await app.inject({
        method: 'POST',
        url: `/api/v1/runs/${id}/answer`,
        payload: { answer: 'yes' },
      })
      expect(answered.statusCode).toBe(202)
      const done = await finished(id)
      expect(done).toMatchObject({ status: 'done', output: 'decided: yes' })
    })

    it('takes one of many answers sent at once and refuses the others (409), which never answer a later question', async () => {
      const plan = {
        steps: [
          { op: 'ask_user', question: 'Ship it?', saveAs: 'ship' },
          { op: 'ask_user', question: 'Tell the team?', saveAs: 'tell' },
          { op: 'stop', output: '{{ship}} / {{tell}}' },
        ],
      }
      const { id } = (await start({ plan })).json()
      expect(await finished(id)).toMatchObject({ status: 'paused', question: 'Ship it?' })
      const answers = Array.from({ length: 8 }, (_, index) => `answer ${index + 1}`)
      // Each names the question it answers: one that arrives once the run has gone on to its
      // next question is refused too, not taken as that question's answer.
      const replies = await Promise.all(
        answers.map((answer) =>
          app.inject({
            method: 'POST',
            url: `/api/v1/runs/${id}/answer`,
            payload: { answer, question: 'Ship it?' },
          }),
        ),
      )
      const taken = answers.filter((_, index) => replies[index]!.statusCode === 202)
      expect(taken).toHaveLength(1)
      for (const reply of replies.filter((each) => each.statusCode !== 202)) {
        expect(reply.statusCode).toBe(409)
        expect(reply.json().error.code).toBe('RUN_NOT_RESUMABLE')
      }
      // The next question waits for its own answer: no refused one answered it.
      expect(await finished(id)).toMatchObject({ status: 'paused', question: 'Tell the team?' })
      const late = await app.inject({
        method: 'POST',
        url: `/api/v1/runs/${id}/answer`,
        payload: { answer: 'late', question: 'Ship it?' },
      })
      expect(late.statusCode).toBe(409)
      expect(late.json().error).toMatchObject({
        code: 'RUN_NOT_RESUMABLE',
        details: { status: 'paused', question: 'Tell the team?' },
      })
      await app.inject({
        method: 'POST',
        url: `/api/v1/runs/${id}/answer`,
        payload: { answer: 'later', question: 'Tell the team?' },
      })
      expect(await finished(id)).toMatchObject({ status: 'done', output: `${taken[0]} / later` })
    })
  })

  describe('POST /api/v1/runs/:id/cancel', () => {
    it('cancels a run in flight', async () => {
      const plan = {
        steps: [{ op: 'tool', toolName: 'wait', args: { ms: 10_000 }, saveAs: 'slept' }],
      }
      const { id } = (await start({ plan })).json()
      await waitFor(async () =>
        (await app.inject({ method: 'GET', url: `/api/v1/runs/${id}` })).json().status === 'running'
          ? true
          : undefined,
      )
      const response = await app.inject({ method: 'POST', url: `/api/v1/runs/${id}/cancel` })
      expect(response.statusCode).toBe(200)
      expect(response.json().status).toBe('cancelled')
    })
  })
})
