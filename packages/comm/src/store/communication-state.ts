import type { MessageBus } from '../bus/message-bus'
import type { Envelope } from '../envelope/envelope'
import type { Escalation } from '../loop-guard/escalation'

/**
 * One conversation as the store shows it. A new object replaces it whenever the conversation
 * changes, so its identity (or `messages`, or `version`) is what selectors compare. Each
 * version is immutable: `messages` is a frozen array of exactly the messages it had.
 */
export type CorrelationView = {
  readonly correlationId: string
  readonly messages: readonly Envelope[]
  readonly hops: number
  /** Bumped on every change of this conversation. */
  readonly version: number
}

/**
 * The state of `createCommunicationStore`. Every state is immutable: `correlations` is a new
 * `ReadonlyMap` on each change (made in O(1); an earlier one keeps showing what it showed),
 * and `version` is bumped on every change.
 */
export type CommunicationState = {
  readonly correlations: ReadonlyMap<string, CorrelationView>
  /** Every escalation this bus knows, oldest first; replaced on each change. */
  readonly escalations: readonly Escalation[]
  readonly version: number
  send: MessageBus['send']
  forward: MessageBus['forward']
  reply: MessageBus['reply']
  allow: MessageBus['allow']
  stop: MessageBus['stop']
  /** Stops following the bus (the bus stays open). */
  detach: () => void
}
