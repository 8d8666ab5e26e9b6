import { parseWith } from '@baton/core'
import { z } from 'zod'
import type { Envelope } from '../envelope/envelope'
import { newId } from '../envelope/new-id'
import {
  FunctionOption,
  LoopGuardSettings,
  PositiveWhole,
  RedisConnectionSettings,
} from '../options/option-schemas'
import { connectRedis, type RedisConnectionOptions } from '../rails/redis/connect-redis'
import { assertExtraHops } from './assert-extra-hops'
import type { Escalation, EscalationStatus } from './escalation'
import { createEscalationChannel } from './escalation-channel'
import { EscalationNotFoundError, EscalationResolvedError } from './escalation-errors'
import { fingerprintOf } from './fingerprint-of'
import {
  type Admission,
  type ConflictProblem,
  DEFAULT_MAX_HOPS,
  type LoopGuard,
  type LoopGuardOptions,
} from './loop-guard'
import { parseEscalationRecord } from './parse-escalation-record'
import { defineGuardScripts, type Scripted } from './scripted-redis'

export type RedisLoopGuardOptions = RedisConnectionOptions &
  LoopGuardOptions & {
    /** Prefix of every key (default `baton`); buses that share a conversation share it. */
    prefix?: string
    /** Chains idle this long are forgotten, with their messages and escalations (default one hour). */
    maxAgeMs?: number
    /** The guard's clock (default `Date.now`); every guard sharing a prefix should agree on it. */
    now?: () => number
  }

const RedisLoopGuardSettings = z.intersection(
  RedisConnectionSettings,
  LoopGuardSettings.extend({
    prefix: z.string().min(1).optional(),
    maxAgeMs: PositiveWhole.optional(),
    now: FunctionOption.optional(),
  }),
)

/**
 * A loop guard whose hop counts, admitted messages and escalations live in Redis and change
 * only inside Lua scripts, so buses in different processes enforce one limit on a shared
 * conversation. It decides exactly as `createMemoryLoopGuard` does.
 *
 * @example
 * const loopGuard = createRedisLoopGuard({ url: 'redis://127.0.0.1:6379', prefix: 'baton', maxHops: 4 })
 * const bus = createMessageBus({ loopGuard, transport: createRedisRail({ url: 'redis://127.0.0.1:6379' }) })
 * // …
 * await bus.close()
 * await loopGuard.close() // a bus never closes a guard it was given
 */
export function createRedisLoopGuard(options: RedisLoopGuardOptions): LoopGuard {
  parseWith(RedisLoopGuardSettings, options, 'redis loop guard options')
  const maxHops = options.maxHops ?? DEFAULT_MAX_HOPS
  const prefix = options.prefix ?? 'baton'
  const ttl = options.maxAgeMs ?? 60 * 60 * 1000
  const now = options.now ?? Date.now
  let connection: Promise<{ client: Scripted; owned: boolean }> | undefined

  const connect = () => {
    connection ??= connectRedis(options, 'redis loop guard').then(({ client, owned }) => ({
      client: defineGuardScripts(client),
      owned,
    }))
    return connection.then(({ client }) => client)
  }

  // ARGV 1 to 3 of every script.
  const common = () => [prefix, now(), ttl] as const
  const escalationKey = (escalationId: string) => `${prefix}:escalation:${escalationId}`
  const channel = createEscalationChannel(connect, `${prefix}:escalation-events`)
  const { announce } = channel

  async function readMany(ids: string[]): Promise<Escalation[]> {
    if (ids.length === 0) return []
    const client = await connect()
    const live = (await client.batonLive(...common(), ...ids)) as number[]
    const wanted = ids.filter((_, index) => live[index] === 1)
    const records = await Promise.all(wanted.map((id) => client.hgetall(escalationKey(id))))
    return records.flatMap((fields) => parseEscalationRecord(fields) ?? [])
  }

  async function read(escalationId: string): Promise<Escalation | undefined> {
    return (await readMany([escalationId]))[0]
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
      const candidate = newId('esc')
      const at = now()
      const [status, value = '', ...rest] = (await client.batonAdmit(
        prefix,
        at,
        ttl,
        envelope.id,
        envelope.from.agentId,
        envelope.to.agentId,
        envelope.hop,
        maxHops,
        candidate,
        JSON.stringify(envelope),
        new Date(at).toISOString(),
        envelope.correlationId,
        envelope.inReplyTo ?? '',
        fingerprintOf(envelope),
      )) as string[]
      if (status === 'admitted' || status === 'duplicate') return { status, hops: Number(value) }
      if (status === 'conflict') {
        const [id = '', correlationId = '', hop = '0'] = rest
        return {
          status,
          problem: value as ConflictProblem,
          recorded: { id, correlationId, hop: Number(hop) },
        }
      }
      if (status === 'stopped') return { status, escalation: value ? await read(value) : undefined }
      const escalation = await required(value)
      if (status === 'escalated') return { status, escalation: await announce(escalation) }
      return { status: 'waiting', escalation }
    },
    async observe(envelope) {
      const client = await connect()
      await client.batonObserve(
        ...common(),
        envelope.id,
        envelope.from.agentId,
        envelope.to.agentId,
        envelope.hop,
        maxHops,
        envelope.correlationId,
        fingerprintOf(envelope),
      )
    },
    async recorded(envelopeId) {
      const client = await connect()
      const [correlationId, hop] = (await client.batonRecorded(...common(), envelopeId)) as string[]
      if (correlationId === undefined) return undefined
      return { id: envelopeId, correlationId, hop: Number(hop) }
    },
    async allow({ escalationId, extraHops }) {
      assertExtraHops(escalationId, extraHops)
      const client = await connect()
      const held = await required(escalationId)
      const reply = (await client.batonAllow(
        ...common(),
        escalationId,
        extraHops,
        new Date(now()).toISOString(),
      )) as string[]
      check(reply, escalationId)
      const escalation = await announce(await required(escalationId))
      return { escalation, heldMessage: held.lastMessage }
    },
    async stop({ escalationId, reason }) {
      const client = await connect()
      const reply = (await client.batonStop(
        ...common(),
        escalationId,
        String(reason),
        new Date(now()).toISOString(),
      )) as string[]
      check(reply, escalationId)
      return announce(await required(escalationId))
    },
    async hops(correlationId) {
      const client = await connect()
      return Number(await client.batonHops(...common(), correlationId))
    },
    escalation: read,
    async escalations() {
      const client = await connect()
      return readMany(await client.zrange(`${prefix}:escalations`, 0, -1))
    },
    watch: channel.watch,
    async close() {
      await channel.close()
      if (!connection) return
      const { client, owned } = await connection
      if (owned) await client.quit().catch(() => {})
    },
  }
}
