import { BatonError, type BatonErrorOptions } from '../errors/baton-error'

/**
 * The registry could not vouch for an agent: it did not answer in time, answered with an
 * error, or answered with something that is not the agent asked for. Callers fail closed.
 */
export class RegistryUnavailableError extends BatonError {
  override name = 'RegistryUnavailableError'
  readonly wallet: string
  /** The HTTP status, when the registry answered with something other than 200 or 404. */
  readonly status: number | undefined

  constructor(
    options: { wallet: string; url: string; reason: string; status?: number },
    errorOptions: BatonErrorOptions = {},
  ) {
    const { wallet, url, reason, status } = options
    super(
      'REGISTRY_UNAVAILABLE',
      `Registry at ${url} could not confirm wallet ${wallet}: ${reason}.`,
      {
        ...errorOptions,
        details: { wallet, url, reason, ...(status === undefined ? {} : { status }) },
      },
    )
    this.wallet = wallet
    this.status = status
  }
}
