import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { toHighS } from '../wallet/has-high-s'
import { hashJson } from './hash-json'
import type { RunReceipt, RunReceiptContent } from './run-receipt'
import { signRunReceipt } from './sign-run-receipt'
import { verifyRunReceipt } from './verify-run-receipt'

const runtime = privateKeyToAccount(generatePrivateKey())
const plan = { inputs: {}, steps: [{ op: 'stop', output: 'hi' }] }
const usage = { calls: 1, tokens: 12, costUsd: 0.0001 }
const wallet = '0x1111111111111111111111111111111111111111'
const content: RunReceiptContent = {
  schemaVersion: 1,
  runId: 'run-1',
  planHash: hashJson(plan),
  inputsHash: hashJson({ topic: 'x' }),
  steps: [
    {
      path: 'steps[0]',
      op: 'delegate',
      saveAs: 'answer',
      agentWallet: wallet,
      inputHash: hashJson({ prompt: 'x' }),
      outputHash: hashJson('hi'),
      usage,
      status: 'done',
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:00:01.000Z',
    },
  ],
  usage,
  usageByWallet: { [wallet]: usage },
  status: 'done',
  outputHash: hashJson('hi'),
  issuedAt: '2026-01-01T00:00:02.000Z',
}

async function refusal(receipt: unknown, options = {}) {
  const error = await verifyRunReceipt(receipt, { runtime: runtime.address, ...options }).then(
    () => undefined,
    (caught: unknown) => caught as { code: string; field?: string; issues?: unknown },
  )
  expect(error, 'the receipt was accepted').toBeDefined()
  return error!
}

describe('verifyRunReceipt', () => {
  it('refuses the high-s twin of a valid signature (same signer, other bytes)', async () => {
    const receipt = await signRunReceipt(content, runtime)
    const twin = { ...receipt, signature: toHighS(receipt.signature as `0x${string}`) }
    const error = await refusal(twin)
    expect(error.code).toBe('RECEIPT_SIGNATURE_INVALID')
    expect(error.field).toBe('signature')
  })

  it('accepts a receipt as signed, with the data it was made from', async () => {
    const receipt = await signRunReceipt(content, runtime)
    const { signer } = await verifyRunReceipt(JSON.parse(JSON.stringify(receipt)), {
      runtime: runtime.address,
      plan,
      inputs: { topic: 'x' },
      output: 'hi',
    })
    expect(signer).toBe(runtime.address)
  })

  const tampers: [string, (receipt: RunReceipt) => void, string][] = [
    ['a string field', (r) => (r.runId = 'run-2'), 'runId'],
    ['the status', (r) => (r.status = 'failed'), 'status'],
    ['a hash', (r) => (r.outputHash = hashJson('bye')), 'outputHash'],
    ['a number in a step', (r) => (r.steps[0]!.usage.tokens = 1), 'steps[0].usage'],
    [
      'a step wallet',
      (r) => (r.steps[0]!.agentWallet = `0x${'2'.repeat(40)}`),
      'steps[0].agentWallet',
    ],
    ['a dropped step', (r) => r.steps.pop(), 'steps.length'],
    ['an added optional field', (r) => (r.steps[0]!.iteration = 2), 'steps[0].iteration'],
    ['a removed optional field', (r) => delete r.steps[0]!.saveAs, 'steps[0].saveAs'],
    ['usage by wallet', (r) => (r.usageByWallet[wallet]!.costUsd = 0), `usageByWallet.${wallet}`],
    [
      'an added wallet',
      (r) => (r.usageByWallet[`0x${'3'.repeat(40)}`] = usage),
      'usageByWallet.size',
    ],
    ['an added error', (r) => (r.error = { code: 'X', message: 'y' }), 'error'],
    ['the issue time', (r) => (r.issuedAt = '2027-01-01T00:00:00.000Z'), 'issuedAt'],
  ]
  it.each(tampers)('refuses a changed %s, naming the field', async (_kind, tamper, field) => {
    const receipt = structuredClone(await signRunReceipt(content, runtime))
    tamper(receipt)
    expect(await refusal(receipt)).toMatchObject({ code: 'RECEIPT_TAMPERED', field })
  })

  it('refuses changed content whose field hash was changed to match, at the signature', async () => {
    const receipt = structuredClone(await signRunReceipt(content, runtime))
    receipt.status = 'failed'
    receipt.fieldHashes.status = hashJson('failed')
    expect(await refusal(receipt)).toMatchObject({
      code: 'RECEIPT_SIGNATURE_INVALID',
      field: 'signature',
    })
  })

  it('refuses a receipt re-signed by another key, or with a broken signature', async () => {
    const other = privateKeyToAccount(generatePrivateKey())
    expect(await refusal(await signRunReceipt(content, other))).toMatchObject({
      code: 'RECEIPT_SIGNATURE_INVALID',
      field: 'runtime',
    })
    const receipt = await signRunReceipt(content, runtime)
    const broken = { ...receipt, signature: `${receipt.signature.slice(0, -4)}abcd` }
    expect(await refusal(broken)).toMatchObject({ code: 'RECEIPT_SIGNATURE_INVALID' })
    const swapped = { ...receipt, runtime: other.address }
    expect(await refusal(swapped)).toMatchObject({ code: 'RECEIPT_TAMPERED', field: 'runtime' })
  })

  it('refuses data that does not match its hash, naming the hash', async () => {
    const receipt = await signRunReceipt(content, runtime)
    expect(await refusal(receipt, { plan: { steps: [] } })).toMatchObject({ field: 'planHash' })
    expect(await refusal(receipt, { inputs: { topic: 'y' } })).toMatchObject({
      field: 'inputsHash',
    })
    expect(await refusal(receipt, { output: 'bye' })).toMatchObject({ field: 'outputHash' })
  })

  it('refuses a receipt that is not one with VALIDATION_FAILED', async () => {
    expect(await refusal({ ...content })).toMatchObject({ code: 'VALIDATION_FAILED' })
  })
})
