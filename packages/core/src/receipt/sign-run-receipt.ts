import type { LocalAccount } from 'viem'
import { receiptFieldHashes } from './receipt-fields'
import { receiptTypedData } from './receipt-typed-data'
import { type RunReceipt, RunReceiptContent } from './run-receipt'

/** A key that signs receipts: a viem local account (`privateKeyToAccount`). */
export type ReceiptSigner = Pick<LocalAccount, 'address' | 'signTypedData'>

/**
 * Signs a run's receipt with the runtime's key (EIP-712): every field is hashed, and the
 * signature covers the headline facts and those hashes.
 *
 * @example
 * const receipt = await signRunReceipt(content, privateKeyToAccount(process.env.BATON_RUNTIME_KEY))
 * await verifyRunReceipt(receipt, { runtime: receipt.runtime })
 */
export async function signRunReceipt(
  content: RunReceiptContent,
  account: ReceiptSigner,
): Promise<RunReceipt> {
  const checked = RunReceiptContent.parse(content)
  const fieldHashes = receiptFieldHashes({ ...checked, runtime: account.address })
  const signature = await account.signTypedData(
    receiptTypedData(checked, account.address, fieldHashes),
  )
  return { ...checked, runtime: account.address, fieldHashes, signature }
}
