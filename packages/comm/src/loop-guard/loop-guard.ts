import type { Envelope } from '../envelope/envelope'
import type { Escalation } from './escalation'

/** What the loop guard decided about one message. */
export type Admission =
  | { status: 'admitted'; hops: number }
  /** This message went past the limit: it is held in a new escalation. */
  | { status: 'escalated'; escalation: Escalation }
  /** The chain already waits on an open escalation; this message is refused, not held. */
  | { status: 'waiting'; escalation: Escalation }
  | { status: 'stopped'; escalation: Escalation | undefined }

/** The outcome of `allow`: the resolved escalation and the message to deliver now. */
export type AllowResult = { escalation: Escalation; heldMessage: Envelope }

/**
 * Counts hops per correlation and decides which messages may travel. The bus calls `admit`
 * for every message it sends; implementations must decide atomically, because two buses may
 * share one guard (see `createRedisLoopGuard`).
 */
export type LoopGuard = {
  readonly maxHops: number
  /** Counts `envelope` as one hop of its correlation, or refuses it. */
  admit(envelope: Envelope): Promise<Admission>
  /** Records a message some other guard admitted (it arrived over a rail), without refusing it. */
  observe(envelope: Envelope): Promise<void>
  /**
   * Lets the chain make exactly `extraHops` (≥ 1) more hops beyond where it was held, the held
   * message being the first of them (delivered now); the hop after those is held again.
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
  close(): Promise<void>
}

export type LoopGuardOptions = {
  /** Hops a conversation may make before a person is asked (default 4). */
  maxHops?: number
}

export const DEFAULT_MAX_HOPS = 4
