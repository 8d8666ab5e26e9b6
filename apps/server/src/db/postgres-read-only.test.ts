import type { Escalation } from '@baton/comm'
import { waitFor } from '@baton/testing/processes'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { callJson, type Json } from '../__fixtures__/call-json'
import { loopUntilHeld, storedEscalation } from '../__fixtures__/outside-parties'
import { serverOnOwnPostgres } from '../__fixtures__/server-on-own-postgres'

// A cluster of its own: the test turns it read-only, as a failover to a standby would.
const own = serverOnOwnPostgres('postgres read-only', {
  // The seeded analyst is the registered agent the held conversations open with.
  BATON_SEED: 'true',
  BATON_RATE_LIMIT: '1000000',
  BATON_DATABASE_TIMEOUT_MS: '3000',
})

const call = (route: string, body?: unknown) => callJson(`${own.server.url}${route}`, body)

/**
 * Every session of the cluster refuses writes from now on (or takes them again), reads still
 * answered: what a server meets when its database fails over to a standby, or an operator
 * makes it read-only. Reloaded, so the server's open connections see it too.
 */
async function setReadOnly(on: boolean): Promise<void> {
  const admin = new pg.Client({ connectionString: own.cluster.url })
  await admin.connect()
  try {
    await admin.query(`alter system set default_transaction_read_only = ${on ? 'on' : 'off'}`)
    await admin.query('select pg_reload_conf()')
  } finally {
    await admin.end()
  }
}

/** A conversation the loop guard holds (see `loopUntilHeld`), once its escalation is stored. */
async function holdChain(correlationId: string): Promise<Escalation> {
  expect(await loopUntilHeld(own.server.url, correlationId)).toMatchObject({
    code: 'LOOP_GUARD_ESCALATED',
  })
  return storedEscalation(own.server.url, correlationId)
}

/** How many times the conversation's stored messages hold the envelope `id`. */
async function timesStored(correlationId: string, id: string): Promise<number> {
  const { body } = await call(`/api/v1/conversations/${correlationId}`)
  return body.messages.filter((message: Json) => message.id === id).length
}

/** Waits until writes are taken again (a reload reaches every session within moments). */
async function untilWritable(): Promise<void> {
  await waitFor(
    async () => {
      const started = await call('/api/v1/runs', { plan: { steps: [{ op: 'stop', output: 'x' }] } })
      return started.status === 202 ? true : undefined
    },
    { timeoutMs: 30_000, what: 'the database to take writes again' },
  )
}

describe.skipIf(!own.available)('a server on PostgreSQL that reads but refuses writes', () => {
  it('answers 507 STORAGE_UNAVAILABLE, not 500, says /ready 503, and takes writes again once it may', async () => {
    await setReadOnly(true)
    try {
      const started = await waitFor(
        async () => {
          const answer = await call('/api/v1/runs', {
            plan: { steps: [{ op: 'stop', output: 'x' }] },
          })
          return answer.status === 202 ? undefined : answer
        },
        { timeoutMs: 30_000, what: 'the reload to reach the server’s connections' },
      )
      expect(started.status, JSON.stringify(started.body)).toBe(507)
      expect(started.body.error.code).toBe('STORAGE_UNAVAILABLE')
      expect(started.body.error.message).toMatch(/read-only/)
      // Reads are still served; the server says it is not ready, and why.
      expect((await call('/api/v1/runs')).status).toBe(200)
      const notReady = await call('/ready')
      expect(notReady.status).toBe(503)
      expect(notReady.body.error.details.checks.database).toMatch(/read-only/)
      expect(own.server.child.exitCode, own.server.output()).toBeNull()
    } finally {
      await setReadOnly(false)
    }
    await untilWritable()
    expect((await call('/ready')).status).toBe(200)
  }, 120_000)

  it('does not act on an allow it could not store: the chain stays held, and is allowed once stored', async () => {
    const correlationId = 'read-only-allow'
    const open = await holdChain(correlationId)
    await setReadOnly(true)
    try {
      const allowed = await waitFor(
        async () => {
          const answer = await call(`/api/v1/escalations/${open.id}/allow`, { extraHops: 4 })
          // Refused once the reload has reached the connection the request used.
          return answer.status === 200 || answer.status === 507 ? answer : undefined
        },
        { timeoutMs: 30_000, what: 'an answer to the allow' },
      )
      expect(allowed.status, JSON.stringify(allowed.body)).toBe(507)
      expect(allowed.body.error.code).toBe('STORAGE_UNAVAILABLE')
    } finally {
      await setReadOnly(false)
    }
    await untilWritable()
    // Not acted on: the held message was not delivered, and the chain still takes nothing.
    expect(await timesStored(correlationId, open.lastMessage.id)).toBe(0)
    const refused = await call('/api/v1/messages', {
      from: { agentId: 'loop-a' },
      to: { agentId: 'loop-b' },
      content: 'while held',
      correlationId,
    })
    expect(refused.status).toBe(409)
    expect(refused.body.error.code).toBe('LOOP_GUARD_ESCALATED')
    const stillOpen = await call('/api/v1/escalations?status=open')
    expect(stillOpen.body.escalations.map((each: Json) => each.id)).toContain(open.id)

    // Decided again, it is stored and acted on: the held message delivered once.
    const again = await call(`/api/v1/escalations/${open.id}/allow`, { extraHops: 4 })
    expect(again.status, JSON.stringify(again.body)).toBe(200)
    expect(again.body.escalation).toMatchObject({ id: open.id, status: 'allowed', extraHops: 4 })
    await waitFor(
      async () =>
        (await timesStored(correlationId, open.lastMessage.id)) === 1 ? true : undefined,
      { what: 'the held message to be delivered and stored' },
    )
    const stored = await call('/api/v1/escalations?status=allowed')
    expect(stored.body.escalations.map((each: Json) => each.id)).toContain(open.id)
    const next = await call('/api/v1/messages', {
      from: { agentId: 'loop-a' },
      to: { agentId: 'loop-b' },
      content: 'after the allow',
      correlationId,
    })
    expect(next.status).toBe(202)
  }, 120_000)

  it('does not stop a chain it could not store the stop of', async () => {
    const correlationId = 'read-only-stop'
    const open = await holdChain(correlationId)
    await setReadOnly(true)
    try {
      const stopped = await waitFor(
        async () => {
          const answer = await call(`/api/v1/escalations/${open.id}/stop`, { reason: 'enough' })
          return answer.status === 200 || answer.status === 507 ? answer : undefined
        },
        { timeoutMs: 30_000, what: 'an answer to the stop' },
      )
      expect(stopped.status, JSON.stringify(stopped.body)).toBe(507)
      expect(stopped.body.error.code).toBe('STORAGE_UNAVAILABLE')
    } finally {
      await setReadOnly(false)
    }
    await untilWritable()
    const stillOpen = await call('/api/v1/escalations?status=open')
    expect(stillOpen.body.escalations.map((each: Json) => each.id)).toContain(open.id)
    // Still open in the guard too: it can be allowed now, which a stopped chain cannot.
    const allowed = await call(`/api/v1/escalations/${open.id}/allow`, { extraHops: 1 })
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200)
    expect(allowed.body.escalation.status).toBe('allowed')
  }, 120_000)

  it('keeps the winner’s decision when an allow and a stop race', async () => {
    const correlationId = 'racing-decisions'
    const open = await holdChain(correlationId)
    const [allow, stop] = await Promise.all([
      call(`/api/v1/escalations/${open.id}/allow`, { extraHops: 2 }),
      call(`/api/v1/escalations/${open.id}/stop`, { reason: 'enough' }),
    ])
    const statuses = [allow.status, stop.status].sort()
    expect(statuses).toEqual([200, 409])
    const winner = allow.status === 200 ? 'allowed' : 'stopped'
    const listed = await waitFor(
      async () => {
        const { body } = await call(`/api/v1/escalations?status=${winner}`)
        return body.escalations.find((each: Json) => each.id === open.id)
      },
      { what: 'the winning decision to be stored' },
    )
    expect(listed.status).toBe(winner)
    const { body } = await call('/api/v1/escalations?status=open')
    expect(body.escalations.map((each: Json) => each.id)).not.toContain(open.id)
  }, 120_000)
})
