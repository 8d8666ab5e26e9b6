import { type Hash, hashJson } from './hash-json'
import type { RunReceiptContent } from './run-receipt'

/** The EIP-712 domain of Baton run receipts (no chain: the proof is off-chain). */
export const receiptDomain = { name: 'Baton Run Receipt', version: '1' } as const

/** The EIP-712 types: the headline facts in the clear, every field through `fieldsHash`. */
export const receiptTypes = {
  RunReceipt: [
    { name: 'schemaVersion', type: 'uint32' },
    { name: 'runId', type: 'string' },
    { name: 'runtime', type: 'address' },
    { name: 'status', type: 'string' },
    { name: 'planHash', type: 'bytes32' },
    { name: 'inputsHash', type: 'bytes32' },
    { name: 'outputHash', type: 'bytes32' },
    { name: 'issuedAt', type: 'string' },
    { name: 'fieldsHash', type: 'bytes32' },
  ],
} as const

/**
 * The typed data a runtime signs for a receipt.
 *
 * @example
 * await account.signTypedData(receiptTypedData(content, account.address, fieldHashes))
 */
export function receiptTypedData(
  content: Pick<
    RunReceiptContent,
    'schemaVersion' | 'runId' | 'status' | 'planHash' | 'inputsHash' | 'outputHash' | 'issuedAt'
  >,
  runtime: string,
  fieldHashes: Record<string, string>,
) {
  return {
    domain: receiptDomain,
    types: receiptTypes,
    primaryType: 'RunReceipt' as const,
    message: {
      schemaVersion: content.schemaVersion,
      runId: content.runId,
      runtime: runtime as Hash,
      status: content.status,
      planHash: content.planHash as Hash,
      inputsHash: content.inputsHash as Hash,
      outputHash: content.outputHash as Hash,
      issuedAt: content.issuedAt,
      fieldsHash: hashJson(fieldHashes),
    },
  }
}
