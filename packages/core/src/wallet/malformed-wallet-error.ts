import { BatonError } from '../errors/baton-error'

/** A wallet that is not a 20-byte hex address, or whose mixed-case checksum is wrong. */
export class MalformedWalletError extends BatonError {
  override name = 'MalformedWalletError'
  readonly wallet: string
  constructor(wallet: unknown, reason: string) {
    const shown = typeof wallet === 'string' ? wallet : String(wallet)
    super('MALFORMED_WALLET', `Malformed wallet "${shown}": ${reason}.`, {
      details: { wallet: shown, reason },
    })
    this.wallet = shown
  }
}
