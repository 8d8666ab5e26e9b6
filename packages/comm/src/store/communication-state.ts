import type { MessageBus } from '../bus/message-bus'
import type { Envelope } from '../envelope/envelope'
import type { Escalation } from '../loop-guard/escalation'

/**
 * One conversation as the store shows it. A new object replaces it whenever the conversation
 * changes, so its identity is what selectors compare. `messages` is append-only and shared
 * between versions (appending is O(1)); read it through the view, not on its own.
 */
export type CorrelationView = {
  readonly correlationId: string
  readonly messages: readonly Envelope[]
  readonly hops: number
  /** Bumped on every change of this conversation. */
  readonly version: number
}

/**
 * The state of `createCommunicationStore`. `correlations` is one Map kept across updates
 * (so an append does not copy it); `version` is bumped on every change, so a selector that
 * reads the whole map can depend on it.
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
