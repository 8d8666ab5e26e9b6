import { Message } from '@a2a-js/sdk'
import { ServerCallContext } from '@a2a-js/sdk/server'
import { type RedisServer, runRedisTests, startRedisServer } from '@baton/testing/redis'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { A2ATaskStore } from './a2a-task-store'
import { createRedisStartClaims } from './redis-start-claims'
import { TASK_START_STATE_KEY, type TaskClaim, TaskStarts } from './task-starts'

if (!runRedisTests) console.warn('[A2A start claims] redis-server not found: skipping.')

const message = (messageId: string, text = 'hello') =>
  Message.fromJSON({ messageId, role: 'ROLE_USER', parts: [{ text }] })
const contextOf = () => new ServerCallContext({ tenant: 'analyst#0xabc' })

/** The database both processes see: the tasks stored, by the message that started them. */
function sharedStore() {
  const stored = new Map<string, { id: string; text: string }>()
  const store = {
    async startedBy(messageId: string) {
      const task = stored.get(messageId)
      return task ? { id: task.id, parts: [{ text: task.text }] } : undefined
    },
  } as unknown as A2ATaskStore
  return { store, stored }
}

// Each "process" is its own claims (its own token) on its own fail-fast connection, as the
// A2A plugin makes them.
describe.runIf(runRedisTests)('createRedisStartClaims', () => {
  let redis: RedisServer
  const clients: Redis[] = []
  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(async () => {
    for (const client of clients) client.disconnect()
    await redis?.stop()
  })

  async function process_(holdMs = 10_000) {
    const client = new Redis(redis.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
    })
    client.on('error', () => {})
    clients.push(client)
    await client.connect()
    return createRedisStartClaims({ client, holdMs })
  }

  it('gives a message’s start to one process; another is told the parts it is held with, and takes it once freed', async () => {
    const a = await process_()
    const b = await process_()
    expect(await a.take('m-1', 'parts')).toEqual({ taken: true })
    expect(await b.take('m-1', 'parts')).toEqual({ heldWith: 'parts' })
    expect(await b.take('m-1', 'other')).toEqual({ heldWith: 'parts' })
    // A process's own claim is still its own.
    expect(await a.take('m-1', 'parts')).toEqual({ taken: true })
    // Only the holder frees it.
    await b.free('m-1')
    expect(await b.take('m-1', 'parts')).toEqual({ heldWith: 'parts' })
    await a.free('m-1')
    expect(await b.take('m-1', 'parts')).toEqual({ taken: true })
    // Another message is another claim.
    expect(await a.take('m-2', 'parts')).toEqual({ taken: true })
  })

  it('lets the claim of a process that died before storing its task lapse', async () => {
    const dead = await process_(200)
    const b = await process_()
    expect(await dead.take('m-lapse', 'parts')).toEqual({ taken: true })
    expect(await b.take('m-lapse', 'parts')).toEqual({ heldWith: 'parts' })
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await b.take('m-lapse', 'parts')).toEqual({ taken: true })
  })

  it('answers the copy on process B with the task process A stored, once stored; A’s giving up lets B start it', async () => {
    const { store, stored } = sharedStore()
    const a = new TaskStarts(store)
    a.share(await process_())
    const b = new TaskStarts(store)
    b.share(await process_())

    // Stored by A: B waits for it, then answers with it.
    const first = await a.claim(message('m-stored'), contextOf())
    expect(first).toHaveProperty('claim')
    let answered: unknown
    const waiting = b.claim(message('m-stored'), contextOf()).then((start) => {
      answered = start
      return start
    })
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect(answered).toBeUndefined()
    stored.set('m-stored', { id: 'task-a', text: 'hello' })
    expect(await waiting).toEqual({ started: 'task-a' })

    // Given up by A (its request ended before it started a task): B starts it.
    const given = (await a.claim(message('m-given-up'), contextOf())) as { claim: TaskClaim }
    const next = b.claim(message('m-given-up'), contextOf())
    await new Promise((resolve) => setTimeout(resolve, 100))
    a.end(given.claim)
    expect(await next).toHaveProperty('claim')

    // Other parts under a claimed messageId: refused at once.
    const context = contextOf()
    const claimed = (await a.claim(message('m-parts'), context)) as { claim: TaskClaim }
    context.state.set(TASK_START_STATE_KEY, claimed.claim)
    await expect(b.claim(message('m-parts', 'other'), contextOf())).rejects.toThrow(
      /params\.message\.messageId "m-parts" was sent before with other parts/,
    )
  })

  it('starts a message as a process alone would when Redis does not answer in time, or is down, and says so once an outage', async () => {
    const { store } = sharedStore()
    const starts = new TaskStarts(store)
    const errors: unknown[] = []
    starts.share(await process_(), (error) => errors.push(error))
    const claimedWithin = async (messageId: string) => {
      const started = Date.now()
      expect(await starts.claim(message(messageId), contextOf())).toHaveProperty('claim')
      return Date.now() - started
    }
    // Stopped where it stands: the claim's bound (500 ms here) passes.
    redis.pause()
    try {
      expect(await claimedWithin('m-paused')).toBeLessThan(2_000)
    } finally {
      redis.resume()
    }
    expect(errors).toHaveLength(1)
    // Answered again: the next outage is told again, once, however many messages it meets.
    expect(await claimedWithin('m-answered')).toBeLessThan(1_000)
    // Gone: refused at once.
    await redis.kill()
    expect(await claimedWithin('m-down')).toBeLessThan(1_000)
    expect(await claimedWithin('m-down-again')).toBeLessThan(1_000)
    expect(errors).toHaveLength(2)
  })
})
