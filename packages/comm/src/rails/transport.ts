import type { Envelope } from '../envelope/envelope'

/** Where a rail hands each envelope it receives; the rail acknowledges once this settles. */
export type TransportReceiver = (envelope: unknown) => Promise<void>

/**
 * A rail that carries envelopes between buses. `publish` resolves once the rail has taken
 * the envelope (queued or written), and rejects when it cannot; delivery to the recipient's
 * bus is then the rail's job, at least once (the bus drops duplicates by id).
 */
export type Transport = {
  /** A short name for errors and logs, e.g. `in-process`, `websocket`, `redis`. */
  readonly name: string
  start(receiver: TransportReceiver): Promise<void>
  publish(envelope: Envelope): Promise<void>
  /** The bus has a subscriber for this agent: rails that route by recipient start reading for it. */
  listen?(agentId: string): void
  /** The bus's last subscriber for this agent left. */
  unlisten?(agentId: string): void
  close(): Promise<void>
}
