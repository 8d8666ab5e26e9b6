import {
  createReceiptSigner,
  createStaticRegistry,
  generateReceiptKey,
  hashJson,
  verifyRunReceipt,
} from '@baton/core'
import { describe, expect, it } from 'vitest'
import { agentRecord, analystWallet } from '../__fixtures__/agents'
import { offlineModels } from '../__fixtures__/offline-models'
import { runPlan } from '../run/run-plan'
import { parsePlan } from '../validate'

const runtime = createReceiptSigner(generateReceiptKey())
const registry = createStaticRegistry([agentRecord({ persona: '[[answer:low risk]]' })])

const source = {
  requireReceipt: true,
  inputs: { topic: 'string' },
  steps: [
    {
      op: 'delegate',
      agentWallet: analystWallet,
      prompt: 'Assess {{topic}}',
      saveAs: 'assessment',
    },
    { op: 'stop', output: { assessment: '{{assessment}}' } },
  ],
}

describe('runPlan with requireReceipt', () => {
  it('ends with a receipt a third party verifies offline against the plan, inputs and output', async () => {
    const result = await runPlan(source, {
      registry,
      models: offlineModels(),
      inputs: { topic: 'loan 42' },
      receiptSigner: runtime,
    })
    expect(result.status).toBe('done')
    const receipt = JSON.parse(JSON.stringify(result.receipt))
    const { signer } = await verifyRunReceipt(receipt, {
      runtime: runtime.address,
      plan: parsePlan(source),
      inputs: { topic: 'loan 42' },
      output: result.output,
    })
    expect(signer).toBe(runtime.address)
    expect(receipt.steps).toMatchObject([
      {
        path: 'steps[0]',
        op: 'delegate',
        saveAs: 'assessment',
        agentWallet: analystWallet,
        status: 'done',
        outputHash: hashJson(result.values.assessment),
      },
      { path: 'steps[1]', op: 'stop', status: 'done' },
    ])
    expect(receipt.usageByWallet).toEqual(result.usageByWallet)
  })

  it('gives a run that failed a receipt of what happened', async () => {
    const result = await runPlan(
      {
        steps: [
          { op: 'scratch', action: 'write', key: 'note', value: 'kept' },
          { op: 'delegate', agentWallet: `0x${'9'.repeat(40)}`, prompt: 'x', saveAs: 'never' },
        ],
      },
      { registry, receiptSigner: runtime, requireReceipt: true },
    )
    expect(result.status).toBe('failed')
    const { receipt } = await verifyRunReceipt(result.receipt, { runtime: runtime.address })
    expect(receipt.status).toBe('failed')
    expect(receipt.error?.code).toBe('UNREGISTERED_AGENT')
    expect(receipt.steps.map((step) => step.status)).toEqual(['done', 'failed'])
  })

  it('hashes what each step read, so the same step on other data has another input hash', async () => {
    const run = (topic: string) =>
      runPlan(source, { registry, inputs: { topic }, receiptSigner: runtime })
    const [one, two] = await Promise.all([run('a'), run('b')])
    expect(one.receipt?.steps[0]?.inputHash).not.toBe(two.receipt?.steps[0]?.inputHash)
  })

  it('refuses to start a plan that requires a receipt when there is no key to sign it', async () => {
    await expect(runPlan(source, { registry, inputs: { topic: 'x' } })).rejects.toMatchObject({
      code: 'RECEIPT_SIGNER_MISSING',
    })
  })

  it('gives no receipt when none is asked for', async () => {
    const result = await runPlan(
      { steps: [{ op: 'stop', output: 1 }] },
      { registry, receiptSigner: runtime },
    )
    expect(result.receipt).toBeUndefined()
  })
})
