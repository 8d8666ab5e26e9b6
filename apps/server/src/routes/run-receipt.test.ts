import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createReceiptSigner, generateReceiptKey, verifyRunReceipt } from '@baton/core'
import { parsePlan } from '@baton/mal'
import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'
import { RUNTIME_KEY_FILE } from '../receipt/load-runtime-signer'
import { seedDemo } from '../seed/seed-demo'

const analyst = '0x1111111111111111111111111111111111111111'
const plan = {
  requireReceipt: true,
  inputs: { request: 'string' },
  steps: [
    {
      op: 'delegate',
      saveAs: 'analysis',
      agentWallet: analyst,
      prompt: 'Look at {{inputs.request}}',
    },
    { op: 'stop', output: '{{analysis}}' },
  ],
}

async function finishedRun(app: FastifyInstance, payload: object) {
  const started = await app.inject({ method: 'POST', url: '/api/v1/runs', payload })
  expect(started.statusCode).toBe(202)
  const id = started.json().id as string
  return waitFor(
    async () => {
      const run = (await app.inject({ method: 'GET', url: `/api/v1/runs/${id}` })).json()
      return ['queued', 'running'].includes(run.status) ? undefined : run
    },
    { what: `run ${id} to finish` },
  )
}

const receiptOf = (app: FastifyInstance, id: string) =>
  app.inject({ method: 'GET', url: `/api/v1/runs/${id}/receipt` })

describe('GET /api/v1/runs/:id/receipt', () => {
  let dataDir: string
  let app: FastifyInstance
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'baton-receipts-'))
    app = await createTestApp({ dataDir })
    await seedDemo(app.baton)
  })
  afterAll(async () => {
    await app.close()
    await rm(dataDir, { recursive: true, force: true })
  })

  it('serves a receipt of a finished run that verifies offline against its plan, inputs and output', async () => {
    const run = await finishedRun(app, { plan, inputs: { request: 'the outage' } })
    expect(run.status).toBe('done')
    const response = await receiptOf(app, run.id)
    expect(response.statusCode).toBe(200)
    const { signer, receipt } = await verifyRunReceipt(response.json(), {
      runtime: app.baton.runtime.address,
      plan: parsePlan(plan),
      inputs: { request: 'the outage' },
      output: run.output,
    })
    expect(signer).toBe(app.baton.runtime.address)
    expect(receipt.steps.map((step) => [step.op, step.agentWallet, step.status])).toEqual([
      ['delegate', analyst, 'done'],
      ['stop', expect.any(String), 'done'],
    ])
  })

  it('keeps the development key in the data folder, so receipts verify after a restart', async () => {
    const run = await finishedRun(app, { plan, inputs: { request: 'before restart' } })
    const before = (await receiptOf(app, run.id)).json()
    const address = app.baton.runtime.address
    expect(app.baton.runtime.source).toBe('data-dir')
    const file = path.join(dataDir, RUNTIME_KEY_FILE)
    expect((await stat(file)).mode & 0o077).toBe(0)
    await app.close()
    app = await createTestApp({ dataDir })
    expect(app.baton.runtime.address).toBe(address)
    const after = (await receiptOf(app, run.id)).json()
    expect(after).toEqual(before)
    await verifyRunReceipt(after, { runtime: address })
    expect((await readFile(file, 'utf8')).trim()).toMatch(/^0x[0-9a-f]{64}$/)
  })

  it('gives a run that failed a receipt of what happened', async () => {
    const failing = {
      requireReceipt: true,
      steps: [{ op: 'delegate', saveAs: 'x', agentWallet: `0x${'9'.repeat(40)}`, prompt: 'hi' }],
    }
    const run = await finishedRun(app, { plan: failing })
    expect(run.status).toBe('failed')
    const { receipt } = await verifyRunReceipt((await receiptOf(app, run.id)).json(), {
      runtime: app.baton.runtime.address,
    })
    expect(receipt.status).toBe('failed')
    expect(receipt.steps[0]?.status).toBe('failed')
    expect(receipt.error?.code).toBe('UNREGISTERED_AGENT')
  })

  it('answers 404 RECEIPT_UNAVAILABLE for a plan that does not require one', async () => {
    const run = await finishedRun(app, { plan: { steps: [{ op: 'stop', output: 1 }] } })
    const response = await receiptOf(app, run.id)
    expect(response.statusCode).toBe(404)
    expect(response.json().error.code).toBe('RECEIPT_UNAVAILABLE')
  })
})

describe('BATON_RUNTIME_KEY', () => {
  it('signs with the configured key, and every run gets a receipt with BATON_REQUIRE_RECEIPTS', async () => {
    const key = generateReceiptKey()
    const app = await createTestApp({ runtimeKey: key, requireReceipts: true })
    try {
      expect(app.baton.runtime).toMatchObject({
        address: createReceiptSigner(key).address,
        source: 'BATON_RUNTIME_KEY',
      })
      const run = await finishedRun(app, { plan: { steps: [{ op: 'stop', output: 1 }] } })
      // A verifier pins the address the server publishes, not the one a receipt claims.
      const published = (await app.inject({ method: 'GET', url: '/api/v1/runtime' })).json()
      expect(published).toEqual({
        address: createReceiptSigner(key).address,
        source: 'BATON_RUNTIME_KEY',
        registry: expect.stringMatching(/^0x[0-9a-fA-F]{64}$/),
      })
      const { signer } = await verifyRunReceipt((await receiptOf(app, run.id)).json(), {
        runtime: published.address,
        output: 1,
      })
      expect(signer).toBe(createReceiptSigner(key).address)
      // Another runtime's receipt is refused against the published address.
      const forged = await verifyRunReceipt((await receiptOf(app, run.id)).json(), {
        runtime: createReceiptSigner(generateReceiptKey()).address,
      }).catch((error: unknown) => error)
      expect(forged).toMatchObject({ code: expect.stringMatching(/RECEIPT/) })
    } finally {
      await app.close()
    }
  })
})
