import type { Envelope } from '../envelope/envelope'
import type { Escalation } from './escalation'

/** What a guard remembers of a message it admitted: enough to check what answers it. */
export type MessageRecord = {
  readonly id: string
  readonly correlationId: string
  /** The hop the envelope itself carried. */
  readonly hop: number
}

/** Why the guard refused a message that contradicts what it recorded. */
export type ConflictProblem =
  /** The id was already admitted with other content: a replay or a forgery. */
  | 'id-reused'
  /** Its correlation is not that of the message named by its `inReplyTo`. */
  | 'correlation'
  /** Its hop is not one more than that of the message named by its `inReplyTo`. */
  | 'hop'

/** What the loop guard decided about one message. */
export type Admission =
  | { status: 'admitted'; hops: number }
  /** This exact message (same id, same content) was admitted before; it is not delivered again. */
  | { status: 'duplicate'; hops: number }
  /** The message contradicts the guard's record (see `ConflictProblem`); it is refused. */
  | { status: 'conflict'; problem: ConflictProblem; recorded: MessageRecord }
  /** This message went past the limit: it is held in a new escalation. */
  | { status: 'escalated'; escalation: Escalation }
  /** The chain already waits on an open escalation; this message is refused, not held. */
  | { status: 'waiting'; escalation: Escalation }
  | { status: 'stopped'; escalation: Escalation | undefined }

/** What a store kept of the bus: its delivered messages and its escalations, oldest first. */
export type GuardHistory = { messages: Envelope[]; escalations: Escalation[] }

/** The outcome of `allow`: the resolved escalation and the message to deliver now. */
export type AllowResult = { escalation: Escalation; heldMessage: Envelope }

/**
 * Counts hops per correlation and decides which messages may travel. The bus calls `admit`
 * for every message it sends; implementations must decide atomically, because two buses may
 * share one guard (see `createRedisLoopGuard`).
 */
export type LoopGuard = {
  readonly maxHops: number
  /**
   * Counts `envelope` as one hop of its correlation, or refuses it. A stopped or held chain
   * admits nothing, whatever the id; a known id is never admitted twice.
   */
  admit(envelope: Envelope): Promise<Admission>
  /** Records a message some other guard admitted (it arrived over a rail), without refusing it. */
  observe(envelope: Envelope): Promise<void>
  /**
   * What the guard recorded of an admitted message, so an answer to it inherits its
   * correlation and hop; undefined when unknown or forgotten. Optional for other guards.
   */
  recorded?(envelopeId: string): Promise<MessageRecord | undefined>
  /**
   * Lets the chain make exactly `extraHops` (a whole number ≥ 1) more hops beyond where it was
   * held, the held message being the first of them (delivered now); the hop after those is
   * held again. Anything but a whole number ≥ 1 is a `ValidationError`, and changes nothing.
   */
  allow(options: { escalationId: string; extraHops: number }): Promise<AllowResult>
  /** Ends the chain: every later message of the correlation is refused. */
  stop(options: { escalationId: string; reason: string }): Promise<Escalation>
  /** Hops counted for a correlation (0 when unknown). */
  hops(correlationId: string): Promise<number>
  escalation(escalationId: string): Promise<Escalation | undefined>
  escalations(): Promise<Escalation[]>
  /**
   * Tells `listener` about escalations raised or resolved by any bus sharing this guard, so
   * every bus (and its store) sees them; guards local to one bus need not offer it.
   */
  watch?(listener: (escalation: Escalation) => void): () => void
  /**
   * Seeds a fresh guard with what a store kept (a process that restarted): hop counts, the
   * messages' ids, and escalations open or resolved, so a chain held before the restart is
   * still held and can still be allowed. Conversations idle past the guard's age are skipped.
   * Guards that keep their state elsewhere (Redis) need not offer it.
   */
  restore?(history: GuardHistory): Promise<void>
  close(): Promise<void>
}

export type LoopGuardOptions = {
  /** Hops a conversation may make before a person is asked (default 4). */
  maxHops?: number
}

export const DEFAULT_MAX_HOPS = 4
