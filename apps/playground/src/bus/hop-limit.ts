import type { Escalation } from '@baton/comm'

/**
 * The hop limit a conversation runs under, as far as the page can know it: the server's
 * `maxHops` when it reports one, else the count at which the loop guard held a chain (it
 * holds at the limit), plus the hops a person allowed that conversation since.
 *
 * @example
 * hopLimit('corr_1', escalations, undefined) // 10 (held at 8, then 2 more allowed)
 */
export function hopLimit(
  correlationId: string,
  escalations: readonly Escalation[],
  maxHops: number | undefined,
): number | undefined {
  const heldAt = escalations.map((escalation) => escalation.hops)
  const base = maxHops ?? (heldAt.length > 0 ? Math.min(...heldAt) : undefined)
  if (base === undefined) return undefined
  const allowed = escalations
    .filter(
      (escalation) => escalation.correlationId === correlationId && escalation.status === 'allowed',
    )
    .reduce((sum, escalation) => sum + (escalation.extraHops ?? 0), 0)
  return base + allowed
}
