import type { Envelope } from '../envelope/envelope'
import type { MessageRecord } from './loop-guard'

/**
 * Appends the agents an envelope visits to a conversation's path: its sender when the path
 * does not already end there (a new branch), then its recipient.
 */
export function extendPath(path: string[], envelope: Envelope): string[] {
  if (path.at(-1) !== envelope.from.agentId) path.push(envelope.from.agentId)
  path.push(envelope.to.agentId)
  return path
}

/**
 * The path of a chain (see `extendPath`): the agents its admitted messages visited, in order,
 * then those `next` would visit. Kept as the messages, not as a list of its own per chain.
 *
 * @example
 * pathOf(chain.messages, held) // ['ops', 'planner', 'coder', 'reviewer']
 */
export function pathOf(messages: readonly Envelope[], next?: Envelope): string[] {
  const path: string[] = []
  for (const message of messages) extendPath(path, message)
  if (next) extendPath(path, next)
  return path
}

/**
 * The hop number the guard gives a message: the count it kept, or the hop the envelope
 * claims when that is higher. A sender can make its chain shorter-lived, never longer-lived.
 */
export function hopOf(envelope: Envelope, counted: number): number {
  return Math.max(envelope.hop, counted)
}

/** What a guard tells of a message it recorded: its id, correlation and the hop it carried. */
export function recordOf(envelope: Envelope): MessageRecord {
  return { id: envelope.id, correlationId: envelope.correlationId, hop: envelope.hop }
}
