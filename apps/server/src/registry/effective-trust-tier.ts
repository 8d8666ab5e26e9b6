import type { Agent } from '@baton/core'
import { TRUST_TIERS, type TrustTierName } from '@baton/mal'

/** The tier any registrant may give its agent; above it an admin's grant is needed. */
export const DEFAULT_TRUST_TIER: TrustTierName = 'low'

const rank = (tier: string) => TRUST_TIERS.indexOf(tier as TrustTierName)

/**
 * The tier an agent counts as: what its registration asks, up to what an admin granted it
 * (the default tier when nothing was granted). A registrant's word raises nothing.
 *
 * @example
 * effectiveTrustTier('critical', null) // 'low'
 * effectiveTrustTier('high', 'critical') // 'high'
 */
export function effectiveTrustTier(
  asked: string | undefined,
  granted: string | null | undefined,
): TrustTierName {
  const wanted =
    rank(asked ?? DEFAULT_TRUST_TIER) < 0 ? DEFAULT_TRUST_TIER : (asked as TrustTierName)
  const ceiling =
    granted && rank(granted) > rank(DEFAULT_TRUST_TIER)
      ? (granted as TrustTierName)
      : DEFAULT_TRUST_TIER
  return rank(wanted) <= rank(ceiling) ? wanted : ceiling
}

/**
 * The agent as it counts: its card's tier is the effective one, what every read answers. The
 * stored record keeps the tier its creator signed.
 *
 * @example
 * withEffectiveTrustTier(signed, null).agentCard.trustTier // 'low', whatever was asked
 */
export function withEffectiveTrustTier(agent: Agent, granted: string | null | undefined): Agent {
  const trustTier = effectiveTrustTier(agent.agentCard.trustTier, granted)
  return { ...agent, agentCard: { ...agent.agentCard, trustTier } }
}
