import type { Transport } from '../transport'

export type WebSocketRailOptions = {
  /** This peer's name, told to every peer it meets; keep it stable across restarts. */
  peerId: string
  /** Accept peers on this address (`port: 0` picks a free port; see `address()`). */
  listen?: { port: number; host?: string }
  /** Peers to connect to, as `ws://host:port` URLs; dropped connections are retried. */
  connect?: string[]
  /** Reconnect backoff: first delay, doubled per failed try up to the maximum (defaults 100 ms / 5 s). */
  reconnect?: { minDelayMs?: number; maxDelayMs?: number }
  /** Unacknowledged envelopes kept per peer before `publish` refuses more (default 100,000). */
  maxPending?: number
  /** How many recent envelope ids are remembered to drop duplicates (default 100,000). */
  dedupeWindow?: number
  /** Pings every peer this often and drops one that did not answer the last ping (default 15 s). */
  heartbeatMs?: number
  /**
   * A listener forgets a peer (and what it had not acknowledged) once it has been gone this
   * long (default 5 minutes), so one peer that never returns cannot block publishing.
   */
  peerTimeoutMs?: number
}

export type WebSocketRailStats = {
  /** Envelopes that arrived from peers, duplicates included. */
  received: number
  /** Arrivals dropped because their id was already delivered. */
  duplicates: number
  /** Envelopes sent again after a reconnect because they were not acknowledged. */
  resent: number
}

export type WebSocketRail = Transport & {
  /** The address this peer listens on, once started. */
  address(): { host: string; port: number } | undefined
  /** Envelopes published but not yet acknowledged by every peer. */
  pending(): number
  /** Resolves when every published envelope has been acknowledged. */
  flush(options?: { timeoutMs?: number }): Promise<void>
  /** Ids of the peers currently connected. */
  peers(): string[]
  stats(): WebSocketRailStats
}
