import { z } from 'zod'
import { ValidationError } from '../errors/baton-error'
import type { Agent } from '../schemas/agent'
import { issuesOf } from '../schemas/parse'
import type { Wallet } from '../wallet/parse-wallet'
import { fetchRegisteredAgent } from './fetch-registered-agent'
import type { EnsureRegisteredAgentOptions, RegistryClient } from './registry-client'
import { RegistryBaseUrl, type RegistryTarget, registryTarget } from './registry-target'
import { registryWallet } from './registry-wallet'

export type CreateRegistryClientOptions = {
  /** The registry's base URL; user info in it is sent as Basic credentials, never shown. */
  baseUrl: string
  /** Defaults to the global `fetch`. */
  fetch?: typeof globalThis.fetch
  /** How long one look-up may take, body included (default 4000). */
  timeoutMs?: number
  /** How long a registered agent stays cached (default 300000; 0 turns caching off). */
  ttlMs?: number
  /** Clock in ms for cache expiry (defaults to `Date.now`). */
  now?: () => number
}

/** The HTTP registry client: a `RegistryClient` with a cache you can drop entries from. */
export interface HttpRegistryClient extends RegistryClient {
  /** Forgets the cached agent of `wallet` (any case); the next look-up asks the registry. */
  invalidate(wallet: unknown): void
  /** Forgets every cached agent. */
  clear(): void
}

/** setTimeout fires at once for any delay past 2^31 - 1 ms. */
const MAX_TIMER_MS = 2_147_483_647

const isFunction = (value: unknown) => typeof value === 'function'

const Options = z.object({
  baseUrl: RegistryBaseUrl,
  fetch: z.custom<typeof globalThis.fetch>(isFunction, 'must be a function').optional(),
  // A timer cannot wait longer; past it every look-up would time out at once.
  timeoutMs: z
    .number()
    .finite()
    .positive()
    .max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} ms`)
    .default(4000),
  ttlMs: z.number().finite().nonnegative().default(300_000),
  now: z.custom<() => number>(isFunction, 'must be a function').optional(),
})

/**
 * Creates a client for the agent registry. `ensureRegisteredAgent` resolves only when the
 * registry answers 200 with the agent asked for; every other outcome rejects (fail closed).
 * Positive answers are cached for `ttlMs`, and concurrent look-ups of one wallet share one
 * request.
 *
 * @example
 * const registry = createRegistryClient({ baseUrl: 'https://registry.example' })
 * const agent = await registry.ensureRegisteredAgent('0x52908400098527886e0f7030069857d2e4169ee7')
 * agent.model // 'openai:gpt-4o-mini'
 */
export function createRegistryClient(options: CreateRegistryClientOptions): HttpRegistryClient {
  const parsed = Options.safeParse(options)
  if (!parsed.success) {
    throw new ValidationError('registry client options', issuesOf(parsed.error))
  }
  const { baseUrl, fetch = globalThis.fetch, timeoutMs, ttlMs, now = Date.now } = parsed.data
  return new HttpRegistry({ target: registryTarget(baseUrl), fetch, timeoutMs, ttlMs, now })
}

type Lookup = {
  promise: Promise<Agent>
  controller: AbortController
  /** Callers still waiting; when the last one with a signal leaves, the request is aborted. */
  waiters: number
}

class HttpRegistry implements HttpRegistryClient {
  readonly #target: RegistryTarget
  readonly #fetch: typeof globalThis.fetch
  readonly #timeoutMs: number
  readonly #ttlMs: number
  readonly #now: () => number
  readonly #cache = new Map<Wallet, { agent: Agent; expiresAt: number }>()
  readonly #inFlight = new Map<Wallet, Lookup>()

  constructor(options: {
    target: RegistryTarget
    fetch: typeof globalThis.fetch
    timeoutMs: number
    ttlMs: number
    now: () => number
  }) {
    this.#target = options.target
    this.#fetch = options.fetch
    this.#timeoutMs = options.timeoutMs
    this.#ttlMs = options.ttlMs
    this.#now = options.now
  }

  async ensureRegisteredAgent(
    input: unknown,
    options: EnsureRegisteredAgentOptions = {},
  ): Promise<Agent> {
    const wallet = registryWallet(input)
    options.signal?.throwIfAborted()
    const cached = this.#cache.get(wallet)
    if (cached) {
      if (this.#now() < cached.expiresAt) return cached.agent
      this.#cache.delete(wallet)
    }
    const lookup = this.#inFlight.get(wallet) ?? this.#start(wallet)
    return this.#wait(wallet, lookup, options.signal)
  }

  invalidate(input: unknown): void {
    const wallet = registryWallet(input)
    this.#cache.delete(wallet)
    // A request already on its way may carry the state being invalidated: do not cache it.
    this.#inFlight.delete(wallet)
  }

  clear(): void {
    this.#cache.clear()
    this.#inFlight.clear()
  }

  #start(wallet: Wallet): Lookup {
    const controller = new AbortController()
    // Still the current look-up of `wallet`, i.e. not invalidated or abandoned meanwhile.
    const current = () => this.#inFlight.get(wallet) === lookup
    const promise = fetchRegisteredAgent({
      fetch: this.#fetch,
      target: this.#target,
      wallet,
      timeoutMs: this.#timeoutMs,
      signal: controller.signal,
    })
      .then((agent) => {
        if (current() && this.#ttlMs > 0) this.#remember(wallet, agent)
        return agent
      })
      .finally(() => {
        if (current()) this.#inFlight.delete(wallet)
      })
    // Every waiter handles the outcome; this keeps an abandoned look-up from being unhandled.
    promise.catch(() => {})
    const lookup: Lookup = { promise, controller, waiters: 0 }
    this.#inFlight.set(wallet, lookup)
    return lookup
  }

  #wait(wallet: Wallet, lookup: Lookup, signal: AbortSignal | undefined): Promise<Agent> {
    lookup.waiters += 1
    if (!signal) return lookup.promise
    return new Promise<Agent>((resolve, reject) => {
      const leave = () => {
        reject(signal.reason)
        lookup.waiters -= 1
        if (lookup.waiters === 0) {
          if (this.#inFlight.get(wallet) === lookup) this.#inFlight.delete(wallet)
          lookup.controller.abort()
        }
      }
      signal.addEventListener('abort', leave, { once: true })
      lookup.promise.then(resolve, reject).finally(() => {
        signal.removeEventListener('abort', leave)
      })
    })
  }

  #remember(wallet: Wallet, agent: Agent): void {
    const now = this.#now()
    // Expired entries are otherwise dropped only when looked up again; sweep now and then.
    if (this.#cache.size >= 1024) {
      for (const [key, entry] of this.#cache) if (entry.expiresAt <= now) this.#cache.delete(key)
    }
    this.#cache.set(wallet, { agent, expiresAt: now + this.#ttlMs })
  }
}
