import { BatonError } from '../errors/baton-error'

/** A receipt whose content does not match what was signed (or the data given to check it). */
export class ReceiptTamperedError extends BatonError {
  override name = 'ReceiptTamperedError'
  /** The field that differs: `planHash`, `steps[2].outputHash`, `usageByWallet.0x…`, ... */
  readonly field: string
  constructor(options: { field: string; reason: string }) {
    super('RECEIPT_TAMPERED', `The receipt's ${options.field} ${options.reason}.`, {
      details: { field: options.field },
    })
    this.field = options.field
  }
}

/** A receipt not signed by the runtime the verifier trusts (or not validly signed at all). */
export class ReceiptSignatureError extends BatonError {
  override name = 'ReceiptSignatureError'
  /** `signature` (it does not verify) or `runtime` (a valid signature by another key). */
  readonly field: 'signature' | 'runtime'
  constructor(options: { field: 'signature' | 'runtime'; reason: string }) {
    super(
      'RECEIPT_SIGNATURE_INVALID',
      `The receipt's ${options.field} is invalid: ${options.reason}.`,
      {
        details: { field: options.field },
      },
    )
    this.field = options.field
  }
}
