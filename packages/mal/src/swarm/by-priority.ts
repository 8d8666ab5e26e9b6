import type { ResolvedSwarmMember } from './types'

/**
 * Members in turn order: higher `priority` first, then the order the swarm lists them.
 *
 * @example
 * byPriority(session.active)[0] // the member that speaks first (and wins ties)
 */
export function byPriority(members: readonly ResolvedSwarmMember[]): ResolvedSwarmMember[] {
  return members
    .map((member, index) => ({ member, index }))
    .sort((a, b) => (b.member.priority ?? 0) - (a.member.priority ?? 0) || a.index - b.index)
    .map(({ member }) => member)
}
