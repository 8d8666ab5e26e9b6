import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends, databaseSettings } from '../__fixtures__/backends'
import { createTestApp } from '../__fixtures__/test-app'
import { seedDemo } from '../seed/seed-demo'

const analyst = '0x1111111111111111111111111111111111111111'
const reviewer = '0x2222222222222222222222222222222222222222'

describe.each(backends)('the ledger routes on %s', (backend) => {
  let app: FastifyInstance
  let runId: string
  beforeAll(async () => {
    app = await createTestApp(await databaseSettings(backend))
    await seedDemo(app.baton)
    const plan = {
      steps: [
        { op: 'delegate', saveAs: 'a', agentWallet: analyst, prompt: 'first' },
        {
          op: 'if',
          cond: 'true',
          // biome-ignore lint/suspicious/noThenProperty: `then` is the MAL field name.
          then: [{ op: 'delegate', saveAs: 'b', agentWallet: reviewer, prompt: 'second' }],
        },
      ],
    }
    runId = (await app.inject({ method: 'POST', url: '/api/v1/runs', payload: { plan } })).json().id
    await waitFor(
      async () => {
        const run = (await app.inject({ method: 'GET', url: `/api/v1/runs/${runId}` })).json()
        return ['queued', 'running'].includes(run.status) ? undefined : run
      },
      { what: 'the run to finish' },
    )
  })
  afterAll(async () => {
    await app.close()
  })

  it("shows a run's rows with the step that spent each and the run's attempt, and their total", async () => {
    const response = await app.inject({ method: 'GET', url: `/api/v1/runs/${runId}/ledger` })
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body).toMatchObject({ runId, attempt: 1, total: 2 })
    expect(
      body.entries.map((entry: Record<string, unknown>) => [
        entry.stepPath,
        entry.wallet,
        entry.attempt,
      ]),
    ).toEqual([
      ['steps[0]', analyst, 1],
      ['steps[1].then[0]', reviewer, 1],
    ])
    expect(body.ledgerTotal).toEqual(body.usage)
  })

  it('filters the ledger by run and by wallet, in any spelling of the wallet', async () => {
    const byRun = (await app.inject({ method: 'GET', url: `/api/v1/ledger?runId=${runId}` })).json()
    expect(byRun.entries).toHaveLength(2)
    expect(byRun.entries.every((entry: { runId: string }) => entry.runId === runId)).toBe(true)
    const byWallet = (
      await app.inject({
        method: 'GET',
        url: `/api/v1/ledger?runId=${runId}&wallet=${reviewer.toUpperCase().replace('0X', '0x')}`,
      })
    ).json()
    expect(byWallet.entries.map((entry: { stepPath: string }) => entry.stepPath)).toEqual([
      'steps[1].then[0]',
    ])
  })

  it('answers 404 NOT_FOUND for the ledger of a run that does not exist', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v1/runs/no-such-run/ledger' })
    expect(response.statusCode).toBe(404)
    expect(response.json().error.code).toBe('NOT_FOUND')
  })
})
