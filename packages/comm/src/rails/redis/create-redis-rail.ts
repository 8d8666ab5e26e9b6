import { parseWith } from '@baton/core'
import type { Redis } from 'ioredis'
import { z } from 'zod'
import type { Envelope } from '../../envelope/envelope'
import {
  FunctionOption,
  PositiveWhole,
  RedisConnectionSettings,
} from '../../options/option-schemas'
import { BoundedIdSet } from '../bounded-id-set'
import type { Transport, TransportReceiver } from '../transport'
import { TransportError } from '../transport-error'
import { connectRedis, type RedisConnectionOptions } from './connect-redis'

export type RedisRailOptions = RedisConnectionOptions & {
  /** Prefix of every key this rail uses (default `baton`). Buses that talk share it. */
  prefix?: string
  /** Consumer group on each agent's stream (default `agents`); buses in one group share the work. */
  group?: string
  /** This bus's consumer name; keep it stable across restarts to pick up what it left pending. */
  consumer?: string
  /** Longest wait of one blocking read, which is also how soon a new subscription is read (default 1 s). */
  blockMs?: number
  /** Entries read per call (default 100). */
  batchSize?: number
  /** Entries a consumer left unacknowledged this long are claimed by another (default 30 s). */
  claimIdleMs?: number
  /** Approximate cap on each agent's stream length (default 100,000). */
  maxStreamLength?: number
  /** Called when a read fails; the rail retries after a pause. */
  onError?: (error: unknown) => void
}

/**
 * A rail over Redis Streams for buses in several processes or machines: one stream per
 * recipient agent, a consumer group on each, an XACK once the bus has taken the envelope,
 * and unacknowledged entries claimed again from consumers that died.
 *
 * @example
 * const bus = createMessageBus({
 *   transport: createRedisRail({ url: 'redis://127.0.0.1:6379', prefix: 'baton' }),
 *   loopGuard: createRedisLoopGuard({ url: 'redis://127.0.0.1:6379', prefix: 'baton' }),
 * })
 */
export function createRedisRail(options: RedisRailOptions): Transport {
  parseWith(RedisRailSettings, options, 'redis rail options')
  return new RedisRail(options)
}

const RedisRailSettings = z.intersection(
  RedisConnectionSettings,
  z.object({
    prefix: z.string().min(1).optional(),
    group: z.string().min(1).optional(),
    consumer: z.string().min(1).optional(),
    blockMs: PositiveWhole.optional(),
    batchSize: PositiveWhole.optional(),
    claimIdleMs: PositiveWhole.optional(),
    maxStreamLength: PositiveWhole.optional(),
    onError: FunctionOption.optional(),
  }),
)

const NAME = 'redis'

class RedisRail implements Transport {
  readonly name = NAME
  readonly #options: RedisRailOptions
  readonly #prefix: string
  readonly #group: string
  readonly #consumer: string
  readonly #agents = new Set<string>()
  readonly #ready = new Set<string>()
  readonly #seen = new BoundedIdSet(100_000)
  #client: Redis | undefined
  #reader: Redis | undefined
  #owned = false
  #receiver: TransportReceiver | undefined
  #loop: Promise<void> | undefined
  #closed = false
  #lastClaimAt = 0

  constructor(options: RedisRailOptions) {
    this.#options = options
    this.#prefix = options.prefix ?? 'baton'
    this.#group = options.group ?? 'agents'
    this.#consumer = options.consumer ?? `consumer-${globalThis.crypto.randomUUID()}`
  }

  async start(receiver: TransportReceiver): Promise<void> {
    this.#receiver = receiver
    const { client, owned } = await connectRedis(this.#options, NAME)
    this.#client = client
    this.#owned = owned
    this.#reader = client.duplicate()
    this.#reader.on('error', () => {})
    this.#loop = this.#read()
  }

  listen(agentId: string): void {
    this.#agents.add(agentId)
  }

  unlisten(agentId: string): void {
    this.#agents.delete(agentId)
  }

  async publish(envelope: Envelope): Promise<void> {
    const client = this.#client
    if (this.#closed || !client) {
      throw new TransportError({
        transport: NAME,
        message: this.#closed ? 'the rail is closed' : 'the rail was not started',
        envelopeId: envelope.id,
      })
    }
    const maxLength = String(this.#options.maxStreamLength ?? 100_000)
    try {
      await client.xadd(
        this.#streamOf(envelope.to.agentId),
        'MAXLEN',
        '~',
        maxLength,
        '*',
        'envelope',
        JSON.stringify(envelope),
      )
    } catch (error) {
      throw new TransportError({
        transport: NAME,
        message: `could not append envelope "${envelope.id}" to the stream of agent "${envelope.to.agentId}"`,
        envelopeId: envelope.id,
        cause: error,
      })
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    // Interrupts a blocking read at once.
    this.#reader?.disconnect()
    await this.#loop
    if (this.#owned) await this.#client?.quit().catch(() => {})
  }

  #streamOf(agentId: string): string {
    return `${this.#prefix}:inbox:${agentId}`
  }

  async #read(): Promise<void> {
    while (!this.#closed) {
      try {
        const agents = [...this.#agents]
        if (agents.length === 0) {
          await pause(50)
          continue
        }
        const fresh = await this.#prepare(agents)
        await this.#claimAbandoned(agents)
        // New subscriptions first read what this consumer left pending (id 0), then new entries.
        const keys = agents.map((agentId) => this.#streamOf(agentId))
        const ids = agents.map((agentId) => (fresh.has(agentId) ? '0' : '>'))
        const reply = (await this.#reader?.xreadgroup(
          'GROUP',
          this.#group,
          this.#consumer,
          'COUNT',
          this.#options.batchSize ?? 100,
          'BLOCK',
          this.#options.blockMs ?? 1_000,
          'STREAMS',
          ...keys,
          ...ids,
        )) as [string, [string, string[]][]][] | null
        for (const [key, entries] of reply ?? []) await this.#deliver(key, entries)
      } catch (error) {
        if (this.#closed) return
        this.#options.onError?.(error)
        await pause(500)
      }
    }
  }

  // Creates the group on streams of agents seen for the first time; returns those agents.
  async #prepare(agents: string[]): Promise<Set<string>> {
    const fresh = new Set<string>()
    for (const agentId of agents) {
      if (this.#ready.has(agentId)) continue
      try {
        // From 0: envelopes sent before any bus listened for this agent still reach it.
        await this.#client?.xgroup('CREATE', this.#streamOf(agentId), this.#group, '0', 'MKSTREAM')
      } catch (error) {
        if (!String(error).includes('BUSYGROUP')) throw error
      }
      this.#ready.add(agentId)
      fresh.add(agentId)
    }
    return fresh
  }

  async #claimAbandoned(agents: string[]): Promise<void> {
    const idleMs = this.#options.claimIdleMs ?? 30_000
    if (Date.now() - this.#lastClaimAt < idleMs / 2) return
    this.#lastClaimAt = Date.now()
    for (const agentId of agents) {
      const key = this.#streamOf(agentId)
      const reply = (await this.#client?.xautoclaim(
        key,
        this.#group,
        this.#consumer,
        idleMs,
        '0-0',
        'COUNT',
        this.#options.batchSize ?? 100,
      )) as [string, [string, string[]][]] | undefined
      if (reply) await this.#deliver(key, reply[1])
    }
  }

  async #deliver(key: string, entries: [string, string[] | null][]): Promise<void> {
    const readAt = Date.now()
    const idleMs = this.#options.claimIdleMs ?? 30_000
    for (const [entryId, fields] of entries) {
      // Read a while ago (this process was stalled, or slow to deliver the batch): another
      // consumer may have claimed the entry since, and delivered it. It is delivered here only
      // once claimed back for this consumer, which succeeds only if no one claimed it since
      // (a claim resets the entry's idle time): one delivery, not two.
      const age = Date.now() - readAt
      if (age >= idleMs / 2) {
        const mine = (await this.#client?.xclaim(
          key,
          this.#group,
          this.#consumer,
          Math.max(0, age - idleMs / 2),
          entryId,
          'JUSTID',
        )) as string[] | undefined
        if (!mine?.length) continue
      }
      const raw = fields?.[fields.indexOf('envelope') + 1]
      if (raw !== undefined) {
        let envelope: unknown
        try {
          envelope = JSON.parse(raw)
        } catch {
          envelope = raw
        }
        const id = (envelope as { id?: unknown })?.id
        if (typeof id !== 'string' || this.#seen.add(id)) await this.#receiver?.(envelope)
      }
      await this.#client?.xack(key, this.#group, entryId)
    }
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
