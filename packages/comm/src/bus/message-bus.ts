import type { LocalAccount } from 'viem'
import type { Envelope } from '../envelope/envelope'
import type { SendInput } from '../envelope/send-input'
import type { Escalation } from '../loop-guard/escalation'
import type { GuardHistory, LoopGuard, LoopGuardOptions } from '../loop-guard/loop-guard'
import type { Transport } from '../rails/transport'
import type { ResolveWallet } from '../signatures/assert-envelope-signature'
import type { DeliveryError } from './delivery-error'
import type { RetentionOptions } from './message-history'

/** Handles envelopes addressed to one agent; may be async. A throw is reported, never fatal. */
export type MessageHandler = (envelope: Envelope) => void | Promise<void>

export type MessageBusEvents = {
  /** An envelope this bus sent or received (once per envelope id). */
  message: Envelope
  /** A chain went past its hop limit and waits for a person. */
  escalation: Escalation
  /** A person allowed or stopped an escalation through this bus. */
  'escalation-resolved': Escalation
  /** A subscriber failed, or an envelope that arrived over a rail was refused. */
  'delivery-error': DeliveryError
  /** Retention dropped a whole conversation. */
  'correlation-expired': { correlationId: string }
  /** Retention dropped the oldest messages of one very long conversation. */
  'correlation-trimmed': { correlationId: string; dropped: number }
}

export type MessageBusOptions = {
  /** The rail envelopes travel on (default: in-process). The bus closes it on `close()`. */
  transport?: Transport
  /** A shared guard (e.g. `createRedisLoopGuard`), or options for an in-memory one. */
  loopGuard?: LoopGuardOptions | LoopGuard
  retention?: RetentionOptions
  /** Refuse any envelope not signed by its sender's wallet (needs `resolveWallet`). */
  requireSignatures?: boolean
  /**
   * With `requireSignatures`: how far a signed envelope's `createdAt` may be from now, either
   * way (default 5 minutes); outside it the envelope is refused as stale, and inside it each
   * signed envelope is accepted once (a replay is refused).
   */
  signatureMaxAgeMs?: number
  /** The wallet that must sign an agent's envelopes. */
  resolveWallet?: ResolveWallet
  /** Signs envelopes the bus builds (send inputs, forwards, replies) for agents it holds keys for. */
  resolveAccount?: (agentId: string) => LocalAccount | undefined
  /** Called when a chain is escalated to a person. */
  onEscalation?: (escalation: Escalation) => void
  /** Called when a subscriber fails or an arriving envelope is refused. */
  onDeliveryError?: (error: DeliveryError) => void
  now?: () => number
}

export type MessageBus = {
  /**
   * Sends new input: the bus fills in id, time, correlation and hop. With `inReplyTo` naming a
   * message the guard recorded, the correlation and hop are inherited from it (a different
   * one given is refused with `MessageConflictError`). A complete envelope is passed to
   * `relay` (kept for callers that relied on it). Rejects when refused.
   */
  send(input: SendInput | Envelope): Promise<Envelope>
  /**
   * Passes on a complete envelope built elsewhere (possibly signed) exactly as it is, after
   * checking it; its correlation and hop must agree with the message its `inReplyTo` names.
   */
  relay(envelope: Envelope): Promise<Envelope>
  /** Passes `message` on to `to`: same correlation, `hop + 1`, sent by its previous recipient. */
  forward(message: Envelope, to: string | { agentId: string }, content?: string): Promise<Envelope>
  /** Answers `message` to its sender, in the same correlation. */
  reply(message: Envelope, content: string): Promise<Envelope>
  subscribe(agentId: string, handler: MessageHandler): () => void
  history(correlationId: string): Envelope[]
  correlations(): string[]
  hops(correlationId: string): number
  escalations(): Escalation[]
  /**
   * The loop guard's escalation `escalationId` as it is now (open or resolved; shared by every
   * bus on the guard), or undefined when the guard does not know it (or no longer keeps it).
   * This, `allow` and `stop` fail with `TRANSPORT_FAILED` when the guard cannot be asked (its
   * Redis is away): nothing was done, and the call can be made again.
   */
  escalation(escalationId: string): Promise<Escalation | undefined>
  /**
   * Lets the chain make exactly `extraHops` (≥ 1) more hops beyond where it was held, the held
   * message being the first of them (delivered now); the hop after those is held again.
   */
  allow(escalationId: string, extraHops: number): Promise<Escalation>
  /** Ends the chain; later messages of its correlation are refused. */
  stop(escalationId: string, reason: string): Promise<Escalation>
  /**
   * Seeds the bus and its loop guard with what a store kept before a restart (see
   * `LoopGuard.restore`): hop counts and escalations come back without being announced again.
   */
  restore(history: GuardHistory): Promise<void>
  on<Name extends keyof MessageBusEvents>(
    name: Name,
    listener: (payload: MessageBusEvents[Name]) => void,
  ): () => void
  /** Resolves when the rail is up. `send` waits for it by itself. */
  ready(): Promise<void>
  /** Resolves when every async subscriber call started so far has settled. */
  settled(): Promise<void>
  readonly loopGuard: LoopGuard
  readonly transport: Transport
  close(): Promise<void>
}
