import { BatonError, type BatonErrorOptions } from '../errors/baton-error'

/** The wallet is missing, or the registry says no agent is registered under it. */
export class UnregisteredAgentError extends BatonError {
  override name = 'UnregisteredAgentError'
  /** The checksummed wallet that was looked up (empty when none was given). */
  readonly wallet: string
  /** The HTTP status the registry answered with, when it was asked over HTTP. */
  readonly status: number | undefined

  constructor(
    options: { wallet: string; reason: string; url?: string; status?: number },
    errorOptions: BatonErrorOptions = {},
  ) {
    const { wallet, reason, url, status } = options
    const subject = wallet ? `No agent is registered under wallet ${wallet}` : 'No agent wallet'
    super('UNREGISTERED_AGENT', `${subject}: ${reason}.`, {
      ...errorOptions,
      details: {
        wallet,
        reason,
        ...(url === undefined ? {} : { url }),
        ...(status === undefined ? {} : { status }),
      },
    })
    this.wallet = wallet
    this.status = status
  }
}
