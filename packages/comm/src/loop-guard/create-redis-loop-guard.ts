import { parseWith } from '@baton/core'
import type { Redis } from 'ioredis'
import { z } from 'zod'
import { newId } from '../envelope/create-envelope'
import type { Envelope } from '../envelope/envelope'
import {
  LoopGuardSettings,
  PositiveWhole,
  RedisConnectionSettings,
} from '../options/option-schemas'
import { connectRedis, type RedisConnectionOptions } from '../rails/redis/connect-redis'
import { Escalation, type EscalationStatus } from './escalation'
import { EscalationNotFoundError, EscalationResolvedError } from './escalation-errors'
import {
  type Admission,
  DEFAULT_MAX_HOPS,
  type LoopGuard,
  type LoopGuardOptions,
} from './loop-guard'
import { ADMIT, ALLOW, OBSERVE, STOP } from './redis-loop-guard-scripts'

export type RedisLoopGuardOptions = RedisConnectionOptions &
  LoopGuardOptions & {
    /** Prefix of every key (default `baton`); buses that share a conversation share it. */
    prefix?: string
    /** Chains and escalations idle this long expire from Redis (default one hour). */
    maxAgeMs?: number
  }

const RedisLoopGuardSettings = z.intersection(
  RedisConnectionSettings,
  LoopGuardSettings.extend({
    prefix: z.string().min(1).optional(),
    maxAgeMs: PositiveWhole.optional(),
  }),
)

type Scripted = Redis & {
  batonAdmit(...args: (string | number)[]): Promise<string[]>
  batonObserve(...args: (string | number)[]): Promise<number>
  batonAllow(...args: (string | number)[]): Promise<string[]>
  batonStop(...args: (string | number)[]): Promise<string[]>
}

/**
 * A loop guard whose hop counts and escalations live in Redis and change only inside Lua
 * scripts, so buses in different processes enforce one limit on a shared conversation.
 *
 * @example
 * const loopGuard = createRedisLoopGuard({ url: 'redis://127.0.0.1:6379', prefix: 'baton', maxHops: 4 })
 * const bus = createMessageBus({ loopGuard, transport: createRedisRail({ url: 'redis://127.0.0.1:6379' }) })
 */
export function createRedisLoopGuard(options: RedisLoopGuardOptions): LoopGuard {
  parseWith(RedisLoopGuardSettings, options, 'redis loop guard options')
  const maxHops = options.maxHops ?? DEFAULT_MAX_HOPS
  const prefix = options.prefix ?? 'baton'
  const ttl = options.maxAgeMs ?? 60 * 60 * 1000
  let connection: Promise<{ client: Scripted; owned: boolean }> | undefined
  const watchers = new Set<(escalation: Escalation) => void>()
  let subscriber: Promise<Redis> | undefined
  let closed = false

  const connect = () => {
    connection ??= connectRedis(options, 'redis loop guard').then(({ client, owned }) => {
      client.defineCommand('batonAdmit', { numberOfKeys: 5, lua: ADMIT })
      client.defineCommand('batonObserve', { numberOfKeys: 3, lua: OBSERVE })
      client.defineCommand('batonAllow', { numberOfKeys: 4, lua: ALLOW })
      client.defineCommand('batonStop', { numberOfKeys: 2, lua: STOP })
      return { client: client as Scripted, owned }
    })
    return connection.then(({ client }) => client)
  }

  const chainKey = (correlationId: string) => `${prefix}:chain:${correlationId}`
  const keys = {
    chain: chainKey,
    /** The chain, path and ids keys of one correlation, in the order the scripts take them. */
    ofChain: (correlationId: string) =>
      [
        chainKey(correlationId),
        `${prefix}:path:${correlationId}`,
        `${prefix}:ids:${correlationId}`,
      ] as const,
    escalation: (escalationId: string) => `${prefix}:escalation:${escalationId}`,
    index: `${prefix}:escalations`,
    events: `${prefix}:escalation-events`,
  }

  // ARGV 1 to 6 of both the admit and the observe script.
  const hopArguments = (envelope: Envelope) =>
    [envelope.id, envelope.from.agentId, envelope.to.agentId, envelope.hop, maxHops, ttl] as const

  // Other buses learn of an escalation through a Redis channel; a missed announcement is not
  // lost state, since `escalations()` reads Redis itself.
  async function announce(escalation: Escalation): Promise<Escalation> {
    const client = await connect()
    await client.publish(keys.events, JSON.stringify(escalation)).catch(() => 0)
    return escalation
  }

  function listen(): void {
    subscriber ??= connect().then(async (client) => {
      const connection = client.duplicate()
      connection.on('error', () => {})
      connection.on('message', (_channel: string, text: string) => {
        let parsed: ReturnType<typeof Escalation.safeParse>
        try {
          parsed = Escalation.safeParse(JSON.parse(text))
        } catch {
          return
        }
        if (parsed.success) for (const watcher of [...watchers]) watcher(parsed.data)
      })
      await connection.subscribe(keys.events)
      if (closed) connection.disconnect()
      return connection
    })
    subscriber.catch(() => {})
  }

  async function read(escalationId: string): Promise<Escalation | undefined> {
    const client = await connect()
    const fields = await client.hgetall(keys.escalation(escalationId))
    if (!fields.id) return undefined
    return Escalation.parse({
      id: fields.id,
      correlationId: fields.correlationId,
      hops: Number(fields.hops),
      path: JSON.parse(fields.path ?? '[]'),
      lastMessage: JSON.parse(fields.lastMessage ?? 'null'),
      status: fields.status,
      createdAt: fields.createdAt,
      ...(fields.resolvedAt ? { resolvedAt: fields.resolvedAt } : {}),
      ...(fields.reason !== undefined ? { reason: fields.reason } : {}),
      ...(fields.extraHops !== undefined ? { extraHops: Number(fields.extraHops) } : {}),
    })
  }

  async function required(escalationId: string): Promise<Escalation> {
    const escalation = await read(escalationId)
    if (!escalation) throw new EscalationNotFoundError(escalationId)
    return escalation
  }

  function check(reply: string[], escalationId: string): void {
    if (reply[0] === 'missing') throw new EscalationNotFoundError(escalationId)
    if (reply[0] === 'resolved') {
      throw new EscalationResolvedError(escalationId, reply[1] as EscalationStatus)
    }
  }

  return {
    maxHops,
    async admit(envelope: Envelope): Promise<Admission> {
      const client = await connect()
      const { correlationId } = envelope
      const candidate = newId('esc')
      const now = Date.now()
      const [status, value = ''] = await client.batonAdmit(
        ...keys.ofChain(correlationId),
        keys.escalation(candidate),
        keys.index,
        ...hopArguments(envelope),
        candidate,
        JSON.stringify(envelope),
        new Date(now).toISOString(),
        now,
        correlationId,
      )
      if (status === 'admitted') return { status, hops: Number(value) }
      if (status === 'stopped') return { status, escalation: value ? await read(value) : undefined }
      const escalation = await required(value)
      if (status === 'escalated') return { status, escalation: await announce(escalation) }
      return { status: 'waiting', escalation }
    },
    async observe(envelope) {
      const client = await connect()
      const { correlationId } = envelope
      await client.batonObserve(...keys.ofChain(correlationId), ...hopArguments(envelope))
    },
    async allow({ escalationId, extraHops }) {
      const client = await connect()
      const held = await required(escalationId)
      const { correlationId } = held
      const reply = await client.batonAllow(
        keys.escalation(escalationId),
        ...keys.ofChain(correlationId),
        extraHops,
        new Date().toISOString(),
        ttl,
      )
      check(reply, escalationId)
      const escalation = await announce(await required(escalationId))
      return { escalation, heldMessage: held.lastMessage }
    },
    async stop({ escalationId, reason }) {
      const client = await connect()
      const held = await required(escalationId)
      const reply = await client.batonStop(
        keys.escalation(escalationId),
        keys.chain(held.correlationId),
        reason,
        new Date().toISOString(),
        ttl,
      )
      check(reply, escalationId)
      return announce(await required(escalationId))
    },
    async hops(correlationId) {
      const client = await connect()
      const next = Number(await client.hget(keys.chain(correlationId), 'next'))
      return Math.max(0, (Number.isFinite(next) ? next : 0) - 1)
    },
    escalation: read,
    async escalations() {
      const client = await connect()
      await client.zremrangebyscore(keys.index, '-inf', Date.now() - ttl)
      const ids = await client.zrange(keys.index, 0, -1)
      const found = await Promise.all(ids.map(read))
      return found.filter((escalation): escalation is Escalation => escalation !== undefined)
    },
    watch(listener) {
      watchers.add(listener)
      listen()
      return () => {
        watchers.delete(listener)
      }
    },
    async close() {
      closed = true
      watchers.clear()
      if (subscriber) (await subscriber.catch(() => undefined))?.disconnect()
      if (!connection) return
      const { client, owned } = await connection
      if (owned) await client.quit().catch(() => {})
    },
  }
}
