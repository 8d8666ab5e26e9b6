import { BatonError } from '../errors/baton-error'

/** A wallet that is not a 20-byte hex address, or whose mixed-case checksum is wrong. */
export class MalformedWalletError extends BatonError {
  override name = 'MalformedWalletError'
  readonly wallet: string
  constructor(wallet: unknown, reason: string) {
    const text = typeof wallet === 'string' ? wallet : String(wallet)
    // Input can come from anywhere; a huge one must not turn into a huge message or log line.
    const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text
    super('MALFORMED_WALLET', `Malformed wallet "${shown}": ${reason}.`, {
      details: { wallet: shown, reason },
    })
    this.wallet = shown
  }
}
