import { BatonError } from '../errors/baton-error'
import { TrustTier } from './agent-card'

/**
 * Whether `tier` is `minimum` or above (`safe` < `low` < `medium` < `high` < `critical`).
 *
 * @example
 * isTrustTierAtLeast('high', 'medium') // true
 */
export function isTrustTierAtLeast(tier: TrustTier, minimum: TrustTier): boolean {
  return TrustTier.options.indexOf(tier) >= TrustTier.options.indexOf(minimum)
}

/** An agent below the trust tier a delegation or a swarm requires. */
export class TrustTierTooLowError extends BatonError {
  override name = 'TrustTierTooLowError'
  constructor(options: { wallet: string; tier: TrustTier; required: TrustTier; where: string }) {
    super(
      'TRUST_TIER_TOO_LOW',
      `Agent ${options.wallet} is trusted "${options.tier}", below the "${options.required}" ${options.where} requires.`,
      { details: { ...options } },
    )
  }
}
