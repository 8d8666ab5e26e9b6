import { type Agent, ValidationError } from '@baton/core'

export type ParsedMentions = {
  /** The mentioned agents, each once, in the order they are first mentioned. */
  targets: Agent[]
  /** The text with the mentions taken out, whitespace tidied and trimmed. */
  task: string
}

// `plain` (lower case, single spaces) rules candidates out cheaply before the pattern runs.
type Candidate = { agent: Agent; pattern: RegExp; length: number; plain: string }

// A mention's `@` may not follow a character that could end the local part of an e-mail
// address, so `ops@example.com` is never read as mentioning "example".
const mentionStart = /(?<![A-Za-z0-9._%+\-@])@/g
// A name or id ends at a character that cannot continue it.
const nameEnd = '(?![A-Za-z0-9_\\-]|\\.[A-Za-z0-9])'

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

type CandidateIndex = { agents: readonly Agent[]; byFirstCharacter: Map<string, Candidate[]> }

// Building the patterns is most of the cost, so they are kept per agent list (stores hand out
// the same array until it changes); the element check catches a list mutated in place.
const indexes = new WeakMap<readonly Agent[], CandidateIndex>()

function candidateIndex(agents: readonly Agent[]): Map<string, Candidate[]> {
  const cached = indexes.get(agents)
  if (
    cached &&
    cached.agents.length === agents.length &&
    cached.agents.every((agent, index) => agent === agents[index])
  ) {
    return cached.byFirstCharacter
  }
  const byFirstCharacter = new Map<string, Candidate[]>()
  for (const agent of agents) {
    for (const label of new Set([agent.name.trim(), agent.id])) {
      if (!label) continue
      const words = label.split(/\s+/).map(escapeRegExp).join('\\s+')
      const first = label[0]!.toLowerCase()
      const bucket = byFirstCharacter.get(first) ?? []
      bucket.push({
        agent,
        pattern: new RegExp(`^${words}${nameEnd}`, 'i'),
        length: label.length,
        plain: label.split(/\s+/).join(' ').toLowerCase(),
      })
      byFirstCharacter.set(first, bucket)
    }
  }
  // Longest first, so "@Ops Orchestrator" beats "@Ops".
  for (const bucket of byFirstCharacter.values())
    bucket.sort((left, right) => right.length - left.length)
  indexes.set(agents, { agents: [...agents], byFirstCharacter })
  return byFirstCharacter
}

/**
 * Finds `@Name` and `@id` mentions of `agents` in `text`. Names may have several words; the
 * longest name that matches wins; matching ignores case; punctuation may follow a mention;
 * e-mail addresses are not mentions. Unknown `@words` stay in the task.
 *
 * @example
 * parseMentions('@Ops Orchestrator, review yesterday’s incidents', agents)
 * // { targets: [opsOrchestrator], task: 'review yesterday’s incidents' }
 */
export function parseMentions(text: string, agents: readonly Agent[]): ParsedMentions {
  // Callers pass chat input straight through; say which argument was wrong, not "matchAll of undefined".
  if (typeof text !== 'string' || !Array.isArray(agents)) {
    throw new ValidationError('parseMentions arguments', [
      ...(typeof text === 'string' ? [] : [{ path: 'text', message: 'must be a string' }]),
      ...(Array.isArray(agents) ? [] : [{ path: 'agents', message: 'must be a list of agents' }]),
    ])
  }
  const candidates = candidateIndex(agents)
  const targets: Agent[] = []
  const segments: string[] = []
  let copiedUpTo = 0
  for (const match of text.matchAll(mentionStart)) {
    const at = match.index
    if (at < copiedUpTo) continue
    const rest = text.slice(at + 1)
    // Names are at most 120 characters (ids 64), so the next 400 hold any name's spaced-out form.
    const restPlain = rest.slice(0, 400).toLowerCase().replace(/\s+/g, ' ')
    let found: { candidate: Candidate; hit: RegExpExecArray } | undefined
    for (const candidate of candidates.get(rest.charAt(0).toLowerCase()) ?? []) {
      if (!restPlain.startsWith(candidate.plain)) continue
      const hit = candidate.pattern.exec(rest)
      if (hit) {
        found = { candidate, hit }
        break
      }
    }
    if (!found) continue
    if (!targets.includes(found.candidate.agent)) targets.push(found.candidate.agent)
    segments.push(text.slice(copiedUpTo, at))
    let end = at + 1 + found.hit[0].length
    // "@Ops: do this" / "@Ops, do this": the separator belongs to the mention.
    if (/^[:,](\s|$)/.test(text.slice(end))) end += 1
    copiedUpTo = end
  }
  segments.push(text.slice(copiedUpTo))
  return { targets, task: segments.reduce(joinAcrossMention).trim() }
}

// Where a mention was taken out, leave one space, or none before punctuation or a line break.
function joinAcrossMention(before: string, after: string): string {
  const left = before.replace(/[^\S\n]+$/, '')
  const right = after.replace(/^[^\S\n]+/, '')
  const tight = left === '' || right === '' || left.endsWith('\n') || /^[\n.,!?;:]/.test(right)
  return `${left}${tight ? '' : ' '}${right}`
}
