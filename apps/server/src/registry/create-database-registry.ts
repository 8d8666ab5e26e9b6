import { type Agent, parseWallet, UnregisteredAgentError } from '@baton/core'
import type { AgentsRepository } from '../db/agents-repository'
import type { BatonServices } from '../services'

/**
 * A core `RegistryClient` over the agents table, with a small positive cache that
 * `invalidate(wallet)` drops at once (a revoked wallet stops resolving immediately).
 *
 * @example
 * const registry = createDatabaseRegistry(repositories.agents)
 * await registry.ensureRegisteredAgent(wallet)
 */
export function createDatabaseRegistry(
  agents: AgentsRepository,
  options: {
    ttlMs?: number
    now?: () => number
    /** Called on every invalidation (what else is cached of the agents drops too). */
    onInvalidate?: () => void
  } = {},
): BatonServices['registry'] {
  const ttlMs = options.ttlMs ?? 30_000
  const now = options.now ?? Date.now
  const cache = new Map<string, { agent: Agent; expiresAt: number }>()
  // Bumped by every invalidation, so a look-up that started before it does not cache stale data.
  let generation = 0
  const walletOf = (input: unknown) => {
    if (input === undefined || input === null || (typeof input === 'string' && !input.trim())) {
      throw new UnregisteredAgentError({ wallet: '', reason: 'no wallet was given' })
    }
    return parseWallet(input)
  }
  return {
    async ensureRegisteredAgent(input, lookup = {}) {
      const wallet = walletOf(input)
      lookup.signal?.throwIfAborted()
      const cached = cache.get(wallet)
      if (cached && now() < cached.expiresAt) return cached.agent
      const started = generation
      const agent = await agents.find(wallet)
      if (!agent) {
        throw new UnregisteredAgentError({ wallet, reason: 'it is not registered here' })
      }
      if (started === generation && ttlMs > 0)
        cache.set(wallet, { agent, expiresAt: now() + ttlMs })
      return agent
    },
    invalidate(input) {
      generation += 1
      cache.delete(walletOf(input))
      options.onInvalidate?.()
    },
    clear() {
      generation += 1
      cache.clear()
      options.onInvalidate?.()
    },
  }
}
