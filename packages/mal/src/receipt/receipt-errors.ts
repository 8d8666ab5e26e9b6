import { BatonError } from '@baton/core'

/** A run must end with a signed receipt, and the runtime has no key to sign it with. */
export class ReceiptSignerMissingError extends BatonError {
  override name = 'ReceiptSignerMissingError'
  constructor(reason: string) {
    super(
      'RECEIPT_SIGNER_MISSING',
      `The run needs a signed receipt (${reason}), but no receiptSigner was given.`,
    )
  }
}
