import type { Agent } from '@baton/core'

/** The `@…` being typed at the caret: where its `@` is and what follows it so far. */
export type MentionQuery = { start: number; query: string }

/**
 * The mention being typed just before `caret`, if any: an `@` at the start or after a space
 * or bracket (so `ops@example.com` is not one), followed by at most 40 characters on the
 * same line.
 *
 * @example
 * findMentionQuery('ask @Ops Or', 11) // { start: 4, query: 'Ops Or' }
 */
export function findMentionQuery(text: string, caret: number): MentionQuery | undefined {
  const before = text.slice(0, caret)
  const at = before.lastIndexOf('@')
  if (at < 0) return undefined
  if (at > 0 && !/[\s([{"']/.test(before[at - 1]!)) return undefined
  const query = before.slice(at + 1)
  if (query.length > 40 || /[\n\r]/.test(query) || /\s{2}/.test(query)) return undefined
  return { start: at, query }
}

/**
 * The agents and swarms that fit a partial mention, best first: names starting with it, then
 * names or ids with a word starting with it, then names or ids containing it.
 *
 * @example
 * suggestMentions(agents, 'rev') // [Reviewer, …]
 */
export function suggestMentions(agents: readonly Agent[], query: string, limit = 8): Agent[] {
  const wanted = query.trim().toLowerCase()
  const scored = agents.flatMap((agent) => {
    const name = agent.name.toLowerCase()
    const id = agent.id.toLowerCase()
    if (!wanted) return [{ agent, score: 3 }]
    if (name.startsWith(wanted) || id.startsWith(wanted)) return [{ agent, score: 0 }]
    const words = [...name.split(/\s+/), ...id.split(/[-_]/)]
    if (words.some((word) => word.startsWith(wanted))) return [{ agent, score: 1 }]
    if (name.includes(wanted) || id.includes(wanted)) return [{ agent, score: 2 }]
    return []
  })
  return scored
    .sort((left, right) => left.score - right.score)
    .slice(0, limit)
    .map(({ agent }) => agent)
}

/**
 * Puts the chosen agent's name in place of the partial mention and says where the caret goes.
 *
 * @example
 * applyMention('ask @rev now', { start: 4, query: 'rev' }, reviewer)
 * // { text: 'ask @Reviewer now', caret: 14 }
 */
export function applyMention(
  text: string,
  mention: MentionQuery,
  agent: Agent,
): { text: string; caret: number } {
  // The query may end in the space typed after a partial name (`@Ops `): it is replaced, not kept.
  const end = mention.start + 1 + mention.query.length
  const after = text.slice(end)
  // One space to go on typing, unless one follows already or punctuation does (`@Reviewer,`).
  const spaced = after === '' || /^[\p{L}\p{N}@]/u.test(after)
  const inserted = `@${agent.name}${spaced ? ' ' : ''}`
  return {
    text: `${text.slice(0, mention.start)}${inserted}${after}`,
    caret: mention.start + inserted.length + (after.startsWith(' ') ? 1 : 0),
  }
}
