import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeApiKey } from '../__fixtures__/api-keys'
import { backends, databaseSettings } from '../__fixtures__/backends'
import { leaveClaimOfDeadRequest } from '../__fixtures__/dead-request-claim'
import { createTestApp } from '../__fixtures__/test-app'
import { seedDemo } from '../seed/seed-demo'

const plan = (name: string) => ({
  name,
  steps: [{ op: 'tool', toolName: 'wait', args: { ms: 1 }, saveAs: 'w' }],
})

describe.each(backends)('Idempotency-Key on %s', (backend) => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp(await databaseSettings(backend))
    await seedDemo(app.baton)
  })
  afterAll(async () => {
    await app.close()
  })

  const post = (url: string, payload: unknown, key?: string) =>
    app.inject({
      method: 'POST',
      url,
      payload: payload as Record<string, unknown>,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    })
  const runsNamed = async (name: string) =>
    (await app.baton.repositories.runs.list({ limit: 200, offset: 0 })).runs.filter(
      (run) => run.plan.name === name,
    )

  it('answers a retried POST /api/v1/runs with the first run’s id and creates one run', async () => {
    const first = await post('/api/v1/runs', { plan: plan('retried') }, 'key-runs-1')
    const second = await post('/api/v1/runs', { plan: plan('retried') }, 'key-runs-1')
    expect(first.statusCode).toBe(202)
    expect(second.statusCode).toBe(202)
    expect(second.json().id).toBe(first.json().id)
    expect(second.headers['idempotent-replayed']).toBe('true')
    expect(first.headers['idempotent-replayed']).toBeUndefined()
    expect((await runsNamed('retried')).map((run) => run.id)).toEqual([first.json().id])
    // Without a key, each request is its own run.
    await post('/api/v1/runs', { plan: plan('unkeyed') })
    await post('/api/v1/runs', { plan: plan('unkeyed') })
    expect(await runsNamed('unkeyed')).toHaveLength(2)
  })

  it('makes one run of requests with the same key that arrive together: one is answered, the others are told it is in use', async () => {
    const body = { plan: plan('together') }
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => post('/api/v1/runs', body, 'key-together')),
    )
    const runs = await runsNamed('together')
    expect(runs).toHaveLength(1)
    const made = answers.filter((answer) => answer.statusCode === 202)
    const refused = answers.filter((answer) => answer.statusCode === 409)
    expect(made.length + refused.length).toBe(answers.length)
    expect(made.filter((answer) => !answer.headers['idempotent-replayed'])).toHaveLength(1)
    for (const answer of made) expect(answer.json().id).toBe(runs[0]?.id)
    for (const answer of refused) expect(answer.json().error.code).toBe('IDEMPOTENCY_KEY_IN_USE')
    // Once answered, every retry gets the answer.
    const retried = await post('/api/v1/runs', body, 'key-together')
    expect(retried.headers['idempotent-replayed']).toBe('true')
    expect(retried.json().id).toBe(runs[0]?.id)
  })

  it('refuses a key reused with another body (422), and keeps keys apart per route', async () => {
    const first = await post('/api/v1/runs', { plan: plan('reused') }, 'key-reused')
    expect(first.statusCode).toBe(202)
    const other = await post('/api/v1/runs', { plan: plan('reused-other') }, 'key-reused')
    expect(other.statusCode).toBe(422)
    expect(other.json().error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      details: { key: 'key-reused' },
    })
    expect(await runsNamed('reused-other')).toEqual([])
    // The same key on the bus is another key.
    // A broadcast to a registered agent: stored and delivered, and it runs nobody.
    const message = {
      from: { agentId: 'a' },
      to: { agentId: 'analyst' },
      type: 'broadcast',
      content: 'hi',
    }
    const sent = await post('/api/v1/messages', message, 'key-reused')
    expect(sent.statusCode).toBe(202)
    const again = await post('/api/v1/messages', message, 'key-reused')
    expect(again.json().envelope.id).toBe(sent.json().envelope.id)
  })

  it('frees the key of a request that failed, so its retry is executed', async () => {
    const bad = await post('/api/v1/runs', { plan: { steps: [{ op: 'nope' }] } }, 'key-failed')
    expect(bad.statusCode).toBe(400)
    const good = await post('/api/v1/runs', { plan: plan('after-failure') }, 'key-failed')
    expect(good.statusCode).toBe(202)
    expect(await runsNamed('after-failure')).toHaveLength(1)
  })

  // The database refuses to store an answer (a disk-full error on that one write, raised by
  // the database itself), `refusals` times, or until the refusal is dropped.
  const refuseAnswers = async (refusals: number | 'until dropped') => {
    const db = app.baton.db
    await sql`drop sequence if exists answer_refusals`.execute(db)
    await sql`create sequence answer_refusals`.execute(db)
    await sql
      .raw(`create or replace function refuse_answers() returns trigger language plpgsql as $$
        begin
          if new.response_status is not null and ${refusals === 'until dropped' ? 'true' : `nextval('answer_refusals') <= ${refusals}`} then
            raise exception 'could not extend file: No space left on device' using errcode = 'disk_full';
          end if;
          return new;
        end $$`)
      .execute(db)
    await sql`drop trigger if exists refuse_answers on idempotency_keys`.execute(db)
    await sql`create trigger refuse_answers before update on idempotency_keys for each row execute function refuse_answers()`.execute(
      db,
    )
    return () => sql`drop trigger refuse_answers on idempotency_keys`.execute(db)
  }

  it('tries again to store an answer the database refused a moment, and acknowledges it once stored', async () => {
    const drop = await refuseAnswers(2)
    try {
      const first = await post('/api/v1/runs', { plan: plan('refused-twice') }, 'key-refused-twice')
      expect(first.statusCode).toBe(202)
      const again = await post('/api/v1/runs', { plan: plan('refused-twice') }, 'key-refused-twice')
      expect(again.headers['idempotent-replayed']).toBe('true')
      expect(again.json().id).toBe(first.json().id)
      expect(await runsNamed('refused-twice')).toHaveLength(1)
    } finally {
      await drop()
    }
  })

  it('does not acknowledge a request whose answer cannot be stored, holds its key, and replays it once stored', async () => {
    const drop = await refuseAnswers('until dropped')
    const body = { plan: plan('answer-unstored') }
    let dropped = false
    try {
      const first = await post('/api/v1/runs', body, 'key-unstored')
      // Carried out, not acknowledged: a retry would not be answered with it.
      expect(first.statusCode).toBe(503)
      expect(first.headers['retry-after']).toBeDefined()
      expect(first.json().error).toMatchObject({
        code: 'IDEMPOTENCY_ANSWER_NOT_STORED',
        details: { key: 'key-unstored' },
      })
      const runs = await runsNamed('answer-unstored')
      expect(runs).toHaveLength(1)
      // Held while its answer is not stored: a retry runs nothing twice, even once its claim is
      // older than a dead request's.
      await sql`update idempotency_keys set created_at = now() - interval '1 hour' where key = 'key-unstored'`.execute(
        app.baton.db,
      )
      const held = await post('/api/v1/runs', body, 'key-unstored')
      expect(held.statusCode).toBe(409)
      expect(held.json().error.code).toBe('IDEMPOTENCY_KEY_IN_USE')
      expect(await runsNamed('answer-unstored')).toHaveLength(1)
      // The database takes writes again: the answer is stored without anyone asking, and a
      // retry gets it.
      await drop()
      dropped = true
      let stored: { response_status: number | null } | undefined
      for (let tries = 0; tries < 100 && !stored?.response_status; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        stored = await app.baton.db
          .selectFrom('idempotency_keys')
          .select('response_status')
          .where('key', '=', 'key-unstored')
          .executeTakeFirst()
      }
      expect(stored?.response_status).toBe(202)
      const replayed = await post('/api/v1/runs', body, 'key-unstored')
      expect(replayed.statusCode).toBe(202)
      expect(replayed.headers['idempotent-replayed']).toBe('true')
      expect(replayed.json().id).toBe(runs[0]?.id)
      expect(await runsNamed('answer-unstored')).toHaveLength(1)
    } finally {
      if (!dropped) await drop()
    }
  })

  it('gives the claim of a request that died unanswered to a retry after a minute, with the id it was creating under', async () => {
    const { idempotency } = app.baton.repositories
    const key = { scope: 'tests POST /things', key: 'key-abandoned', requestHash: 'h' }
    const claim = (resourceId: string) =>
      idempotency.claim({ ...key, resourceId, abandonedAfterMs: 60_000 })
    expect(await claim('thing-1')).toEqual({ kind: 'new', resourceId: 'thing-1', abandoned: false })
    // Younger than a minute: its request may still be running.
    expect(await claim('thing-2')).toEqual({ kind: 'in-progress' })
    await sql`update idempotency_keys set created_at = now() - interval '2 minutes' where key = 'key-abandoned'`.execute(
      app.baton.db,
    )
    expect(await claim('thing-3')).toEqual({ kind: 'new', resourceId: 'thing-1', abandoned: true })
    // Taken: the retry that took it holds it now.
    expect(await claim('thing-4')).toEqual({ kind: 'in-progress' })
    // A key claimed before ids were kept: the retry's id becomes the key's.
    await sql`update idempotency_keys set created_at = now() - interval '2 minutes', resource_id = null where key = 'key-abandoned'`.execute(
      app.baton.db,
    )
    expect(await claim('thing-5')).toEqual({ kind: 'new', resourceId: 'thing-5', abandoned: true })
    const row = await app.baton.db
      .selectFrom('idempotency_keys')
      .select('resource_id')
      .where('key', '=', 'key-abandoned')
      .executeTakeFirst()
    expect(row?.resource_id).toBe('thing-5')
  })

  it('queues the run of a request that died after storing it and before queueing it, when a retry takes its claim', async () => {
    const body = { plan: plan('stored-unqueued') }
    const first = await post('/api/v1/runs', body, 'key-unqueued')
    expect(first.statusCode).toBe(202)
    // What a process that died between storing its run and queueing it leaves: a run queued
    // that no queue holds (made here after this process's start, so its start did not queue
    // it), and the key's claim unanswered for two minutes, with the run's id.
    const stored = crypto.randomUUID()
    await app.baton.repositories.runs.create({
      id: stored,
      kind: 'plan',
      plan: body.plan,
      inputs: {},
    })
    await leaveClaimOfDeadRequest(app.baton.db, 'key-unqueued', stored)
    const retried = await post('/api/v1/runs', body, 'key-unqueued')
    expect(retried.statusCode).toBe(202)
    expect(retried.headers['idempotent-replayed']).toBe('true')
    expect(retried.json().id).toBe(stored)
    // The run the retry is given runs to its end, once.
    await waitFor(
      async () =>
        (await app.baton.repositories.runs.find(stored))?.status === 'done' ? true : undefined,
      { timeoutMs: 10_000, intervalMs: 20, what: 'the stored run to end' },
    )
    expect((await app.baton.repositories.runs.find(stored))?.attempt).toBe(1)
  })

  it('answers a retried POST /api/v1/swarms/:id/runs with the first swarm run, and refuses its key on another swarm (422)', async () => {
    const swarmRuns = async () =>
      (await app.baton.repositories.runs.list({ limit: 200, offset: 0 })).runs.filter(
        (run) => run.kind === 'swarm',
      )
    const before = (await swarmRuns()).length
    const body = { input: 'Review the release notes' }
    const first = await post('/api/v1/swarms/dev-team/runs', body, 'key-swarm')
    const second = await post('/api/v1/swarms/dev-team/runs', body, 'key-swarm')
    expect(first.statusCode).toBe(202)
    expect(second.statusCode).toBe(202)
    expect(second.json()).toEqual(first.json())
    expect(second.headers['idempotent-replayed']).toBe('true')
    expect((await swarmRuns()).length).toBe(before + 1)
    // The same key and body on another swarm is another request: refused, nothing started.
    const created = await post('/api/v1/swarms', {
      id: 'other-team',
      name: 'Other team',
      strategy: 'democratic',
      agents: [{ agentId: 'analyst', role: 'worker' }],
    })
    expect(created.statusCode).toBe(201)
    const other = await post('/api/v1/swarms/other-team/runs', body, 'key-swarm')
    expect(other.statusCode).toBe(422)
    expect(other.json().error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      details: { key: 'key-swarm' },
    })
    expect((await swarmRuns()).length).toBe(before + 1)
    // Without a key, each request is its own swarm run.
    await post('/api/v1/swarms/dev-team/runs', body)
    await post('/api/v1/swarms/dev-team/runs', body)
    expect((await swarmRuns()).length).toBe(before + 3)
  })

  it('queues the swarm run of a request that died after storing it and before queueing it, when a retry takes its claim', async () => {
    const body = { input: 'Check the outage report' }
    const first = await post('/api/v1/swarms/dev-team/runs', body, 'key-swarm-unqueued')
    expect(first.statusCode).toBe(202)
    // What a process that died between storing its swarm run and queueing it leaves.
    const swarm = await app.baton.repositories.swarms.find('dev-team')
    const stored = crypto.randomUUID()
    await app.baton.repositories.runs.create({
      id: stored,
      kind: 'swarm',
      swarmId: 'dev-team',
      plan: swarm as unknown as Record<string, unknown>,
      inputs: { task: body.input },
    })
    await leaveClaimOfDeadRequest(app.baton.db, 'key-swarm-unqueued', stored)
    const retried = await post('/api/v1/swarms/dev-team/runs', body, 'key-swarm-unqueued')
    expect(retried.statusCode).toBe(202)
    expect(retried.headers['idempotent-replayed']).toBe('true')
    expect(retried.json()).toEqual({ run: { id: stored }, runId: stored })
    // The swarm run the retry is given runs to its end, once.
    await waitFor(
      async () =>
        (await app.baton.repositories.runs.find(stored))?.status === 'done' ? true : undefined,
      { timeoutMs: 20_000, intervalMs: 20, what: 'the stored swarm run to end' },
    )
    expect((await app.baton.repositories.runs.find(stored))?.attempt).toBe(1)
  })

  it('refuses a malformed key with 400 naming the header', async () => {
    const response = await post('/api/v1/runs', { plan: plan('bad-key') }, 'has space')
    expect(response.statusCode).toBe(400)
    expect(response.json().error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { issues: [{ path: 'Idempotency-Key' }] },
    })
    expect(await runsNamed('bad-key')).toEqual([])
  })
})

describe('Idempotency-Key among many parties', () => {
  const adminToken = 'idempotency-admin-token-0123456789'
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp({ apiToken: adminToken })
    await seedDemo(app.baton)
  })
  afterAll(async () => {
    await app.close()
  })

  it("keeps each key's Idempotency-Keys its own: the same key from another party neither replays this answer nor blocks this request", async () => {
    const [alice, bob] = [
      await makeApiKey(app, adminToken, 'alice'),
      await makeApiKey(app, adminToken, 'bob'),
    ]
    const post = (key: string, payload: unknown) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/runs',
        payload: payload as Record<string, unknown>,
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'order-123' },
      })
    const body = { plan: plan('shared-key') }
    const bobs = await post(bob, body)
    expect(bobs.statusCode).toBe(202)
    // Alice picks the same (guessable) key after Bob: her run is made, not Bob's replayed.
    const alices = await post(alice, body)
    expect(alices.statusCode).toBe(202)
    expect(alices.headers['idempotent-replayed']).toBeUndefined()
    expect(alices.json().id).not.toBe(bobs.json().id)
    // ... and she can read it; another body under the key is hers to refuse, not Bob's.
    const read = await app.inject({
      method: 'GET',
      url: `/api/v1/runs/${alices.json().id}`,
      headers: { authorization: `Bearer ${alice}` },
    })
    expect(read.statusCode).toBe(200)
    expect((await post(bob, { plan: plan('other-body') })).statusCode).toBe(422)
    // Her own retry still replays her answer.
    const retried = await post(alice, body)
    expect(retried.headers['idempotent-replayed']).toBe('true')
    expect(retried.json().id).toBe(alices.json().id)
  })
})
