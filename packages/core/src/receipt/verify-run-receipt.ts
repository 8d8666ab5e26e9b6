import { isAddressEqual, recoverTypedDataAddress } from 'viem'
import { ValidationError } from '../errors/baton-error'
import { issuesOf } from '../schemas/parse'
import { hasHighS } from '../wallet/has-high-s'
import { hashJson } from './hash-json'
import { ReceiptSignatureError, ReceiptTamperedError } from './receipt-errors'
import { receiptFieldHashes } from './receipt-fields'
import { receiptTypedData } from './receipt-typed-data'
import { RunReceipt } from './run-receipt'

export type VerifyRunReceiptOptions = {
  /** The runtime address (or addresses) whose receipts are trusted. */
  runtime: string | readonly string[]
  /** The validated plan the run was given (`parsePlan(source)`): checked against `planHash`. */
  plan?: unknown
  /** The run's inputs: checked against `inputsHash`. */
  inputs?: Record<string, unknown>
  /** The run's output: checked against `outputHash`. */
  output?: unknown
}

/**
 * Checks a run receipt offline: its shape, the hashes of whatever data it is given, a hash per
 * field against what was signed, and the EIP-712 signature against the trusted runtime.
 * Resolves to the receipt (parsed) and its signer; any difference rejects with a typed error
 * naming the field (`ReceiptTamperedError`, `ReceiptSignatureError`, or `ValidationError`).
 *
 * @example
 * const { signer } = await verifyRunReceipt(receipt, { runtime: '0x52908400098527886E0F7030069857D2E4169EE7', output })
 */
export async function verifyRunReceipt(
  input: unknown,
  options: VerifyRunReceiptOptions,
): Promise<{ receipt: RunReceipt; signer: `0x${string}` }> {
  const parsed = RunReceipt.safeParse(input)
  if (!parsed.success) throw new ValidationError('run receipt', issuesOf(parsed.error))
  const receipt = parsed.data
  const given: [
    field: 'planHash' | 'inputsHash' | 'outputHash',
    value: unknown,
    present: boolean,
  ][] = [
    ['planHash', options.plan, 'plan' in options],
    ['inputsHash', options.inputs, 'inputs' in options],
    ['outputHash', options.output, 'output' in options],
  ]
  for (const [field, value, present] of given) {
    if (present && hashJson(value) !== receipt[field]) {
      throw new ReceiptTamperedError({ field, reason: 'does not match the data given' })
    }
  }
  const { runtime, fieldHashes, signature, ...content } = receipt
  const computed = receiptFieldHashes({ ...content, runtime })
  for (const field of new Set([...Object.keys(computed), ...Object.keys(fieldHashes)])) {
    if (computed[field] === undefined) {
      throw new ReceiptTamperedError({ field, reason: 'is missing (it was signed)' })
    }
    if (fieldHashes[field] === undefined) {
      throw new ReceiptTamperedError({ field, reason: 'was not signed' })
    }
    if (computed[field] !== fieldHashes[field]) {
      throw new ReceiptTamperedError({ field, reason: 'was changed after it was signed' })
    }
  }
  if (hasHighS(signature as `0x${string}`)) {
    throw new ReceiptSignatureError({
      field: 'signature',
      reason: 'it has a high-s value (EIP-2): its low-s twin is the one a runtime signs',
    })
  }
  let signer: `0x${string}`
  try {
    signer = await recoverTypedDataAddress({
      ...receiptTypedData(content, runtime, fieldHashes),
      signature: signature as `0x${string}`,
    })
  } catch (error) {
    throw new ReceiptSignatureError({
      field: 'signature',
      reason: error instanceof Error ? error.message.split('\n')[0]! : String(error),
    })
  }
  if (!isAddressEqual(signer, runtime as `0x${string}`)) {
    throw new ReceiptSignatureError({
      field: 'signature',
      reason: 'it does not match the receipt (a signed field or field hash was changed)',
    })
  }
  const trusted = typeof options.runtime === 'string' ? [options.runtime] : options.runtime
  if (!trusted.some((address) => isAddressEqual(address as `0x${string}`, signer))) {
    throw new ReceiptSignatureError({
      field: 'runtime',
      reason: `${signer} is not a trusted runtime`,
    })
  }
  return { receipt, signer }
}
