import type { Agent } from '../schemas/agent'

export type EnsureRegisteredAgentOptions = {
  /** Stops waiting for this look-up; the promise rejects with the signal's reason. */
  signal?: AbortSignal
}

/**
 * Anything that can vouch for a wallet-addressed agent: the HTTP registry client, or a
 * static list of agents (a local agents file).
 */
export interface RegistryClient {
  /**
   * Resolves the registered agent for `wallet` (any-case hex), or rejects with
   * `UnregisteredAgentError`, `MalformedWalletError` or `RegistryUnavailableError`.
   */
  ensureRegisteredAgent(wallet: unknown, options?: EnsureRegisteredAgentOptions): Promise<Agent>
}
