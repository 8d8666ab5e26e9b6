import { generateReceiptKey, hashJson, type RunReceiptContent, signRunReceipt } from '@baton/core'
import { ServerRefusedError, ServerUnavailableError } from '@baton/surface'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { checkRunReceipt } from './check-run-receipt'

const runtime = privateKeyToAccount(generateReceiptKey())
const wallet = '0x1111111111111111111111111111111111111111'
const usage = { calls: 1, tokens: 10, costUsd: 0.001 }
const run = { inputs: { request: 'ship it' }, output: 'shipped' }
const content: RunReceiptContent = {
  schemaVersion: 1,
  runId: 'run-1',
  planHash: hashJson({ steps: [] }),
  inputsHash: hashJson(run.inputs),
  steps: [
    {
      path: 'steps[0]',
      op: 'delegate',
      agentWallet: wallet,
      inputHash: hashJson({ prompt: 'ship it' }),
      outputHash: hashJson('shipped'),
      usage,
      status: 'done',
      startedAt: '2026-12-01T10:00:00.000Z',
      finishedAt: '2026-12-01T10:00:01.000Z',
    },
  ],
  usage,
  usageByWallet: { [wallet]: usage },
  status: 'done',
  outputHash: hashJson('shipped'),
  issuedAt: '2026-12-01T10:00:02.000Z',
}

// As the browser gets it: JSON, so nothing of the signing side's objects survives.
const served = async (change?: (receipt: Record<string, unknown>) => void) => {
  const receipt = JSON.parse(JSON.stringify(await signRunReceipt(content, runtime)))
  change?.(receipt)
  return () => Promise.resolve(receipt)
}

const refused = (status: number, message: string) => () =>
  Promise.reject(
    new ServerRefusedError({ where: 'GET receipt', status, code: 'RECEIPT_UNAVAILABLE', message }),
  )

describe('checkRunReceipt', () => {
  it('verifies a served receipt against the run shown, with its signer and plan hash', async () => {
    expect(await checkRunReceipt({ load: await served(), run })).toEqual({
      state: 'verified',
      signer: runtime.address,
      trust: 'receipt',
      planHash: content.planHash,
      runStatus: 'done',
      steps: 1,
      issuedAt: content.issuedAt,
      matched: ['inputs', 'output'],
    })
  })

  it('verifies against the runtime the server names, when it names one', async () => {
    const check = await checkRunReceipt({ load: await served(), run, runtime: runtime.address })
    expect(check).toMatchObject({ state: 'verified', trust: 'server' })
  })

  it('names the field when one byte of a step output hash was changed', async () => {
    const load = await served((receipt) => {
      const step = (receipt.steps as { outputHash: string }[])[0]!
      const last = step.outputHash.at(-1) === '0' ? '1' : '0'
      step.outputHash = `${step.outputHash.slice(0, -1)}${last}`
    })
    expect(await checkRunReceipt({ load, run })).toMatchObject({
      state: 'invalid',
      code: 'RECEIPT_TAMPERED',
      field: 'steps[0].outputHash',
      message: expect.stringContaining('steps[0].outputHash'),
    })
  })

  it('refuses a receipt whose output is not the one the page shows', async () => {
    const check = await checkRunReceipt({
      load: await served(),
      run: { ...run, output: 'not shipped' },
    })
    expect(check).toMatchObject({ state: 'invalid', field: 'outputHash' })
  })

  it('refuses a receipt signed by another key than the runtime the server names', async () => {
    const other = privateKeyToAccount(generateReceiptKey()).address
    expect(await checkRunReceipt({ load: await served(), run, runtime: other })).toMatchObject({
      state: 'invalid',
      code: 'RECEIPT_SIGNATURE_INVALID',
      field: 'runtime',
    })
  })

  it('names the first wrong field of something that is not a receipt', async () => {
    const load = await served((receipt) => {
      receipt.planHash = 'not a hash'
    })
    expect(await checkRunReceipt({ load, run })).toMatchObject({
      state: 'invalid',
      code: 'VALIDATION_FAILED',
      field: 'planHash',
    })
  })

  it('says there is no receipt (404), none yet (409), or that it could not be read', async () => {
    const none = await checkRunReceipt({ load: refused(404, 'Run r has no receipt.') })
    expect(none).toEqual({ state: 'missing', message: 'Run r has no receipt.' })
    const early = await checkRunReceipt({ load: refused(409, 'Run r is running.') })
    expect(early).toEqual({ state: 'pending', message: 'Run r is running.' })
    const down = () => Promise.reject(new ServerUnavailableError('GET receipt', 'timed out'))
    expect(await checkRunReceipt({ load: down })).toMatchObject({ state: 'unreadable' })
  })
})
