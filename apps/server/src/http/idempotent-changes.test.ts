import { signAgentChange } from '@baton/core'
import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends, databaseSettings } from '../__fixtures__/backends'
import { leaveClaimOfDeadRequest } from '../__fixtures__/dead-request-claim'
import { listenTestApp } from '../__fixtures__/listen-test-app'
import { loopUntilHeld, storedEscalation } from '../__fixtures__/outside-parties'
import { signedRegistration } from '../__fixtures__/signed-agents'
import { testRegistryId } from '../settings'

// What a person registers, creates and decides in the playground, sent again because its answer
// was lost: with the first request's Idempotency-Key, the retry is answered as the first was,
// not refused for the agent, swarm or decision the first request made.

describe.each(backends)('Idempotency-Key on what a person changes, on %s', (backend) => {
  let app: FastifyInstance
  let base: string
  beforeAll(async () => {
    ;({ app, base } = await listenTestApp({ settings: await databaseSettings(backend) }))
  })
  afterAll(async () => {
    await app.close()
  })

  const call = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload: unknown, key?: string) =>
    app.inject({
      method,
      url,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      headers: key === undefined ? {} : { 'idempotency-key': key },
    })
  const post = (url: string, payload: unknown, key?: string) => call('POST', url, payload, key)
  /** Sent twice with `key`: both answered alike, the second a replay. */
  const twice = async (
    method: 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload: unknown,
    key: string,
  ) => {
    const first = await call(method, url, payload, key)
    const second = await call(method, url, payload, key)
    expect(second.statusCode).toBe(first.statusCode)
    expect(second.headers['idempotent-replayed']).toBe('true')
    expect(first.headers['idempotent-replayed']).toBeUndefined()
    expect(second.json()).toEqual(first.json())
    return first
  }
  const agentsOf = async (wallet: string) =>
    (
      await sql<{ wallet: string }>`select wallet from agents where wallet = ${wallet}`.execute(
        app.baton.db,
      )
    ).rows

  it('answers a retried registration with its first answer and registers the agent once', async () => {
    const { agent, body } = await signedRegistration()
    const first = await post('/api/v1/agents', body, 'key-register')
    const second = await post('/api/v1/agents', body, 'key-register')
    expect(first.statusCode).toBe(201)
    expect(second.statusCode).toBe(201)
    expect(second.headers['idempotent-replayed']).toBe('true')
    expect(second.json()).toEqual(first.json())
    expect(first.json().agent.wallet).toBe(agent.wallet)
    expect(await agentsOf(agent.wallet)).toHaveLength(1)
    // Another registration under the key is refused, and registers nothing.
    const other = await signedRegistration()
    const reused = await post('/api/v1/agents', other.body, 'key-register')
    expect(reused.statusCode).toBe(422)
    expect(reused.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED')
    expect(await agentsOf(other.agent.wallet)).toEqual([])
    // Without a key the same body sent again is what it was: a conflict.
    const unkeyed = await post('/api/v1/agents', body)
    expect(unkeyed.statusCode).toBe(409)
  })

  it('answers the retry of a registration whose process died after registering with the agent, and registers one whose process died before', async () => {
    const registered = await signedRegistration()
    expect((await post('/api/v1/agents', registered.body, 'key-died-after')).statusCode).toBe(201)
    await leaveClaimOfDeadRequest(app.baton.db, 'key-died-after', registered.agent.wallet)
    const recovered = await post('/api/v1/agents', registered.body, 'key-died-after')
    expect(recovered.statusCode).toBe(201)
    expect(recovered.headers['idempotent-replayed']).toBe('true')
    expect(recovered.json().agent.wallet).toBe(registered.agent.wallet)

    // Its transaction never committed: neither the agent nor its nonce is stored.
    const unregistered = await signedRegistration()
    expect((await post('/api/v1/agents', unregistered.body, 'key-died-before')).statusCode).toBe(
      201,
    )
    await sql`delete from agents where wallet = ${unregistered.agent.wallet}`.execute(app.baton.db)
    await sql`delete from registration_nonces where nonce = ${unregistered.body.nonce.toLowerCase()}`.execute(
      app.baton.db,
    )
    app.baton.registry.invalidate(unregistered.agent.wallet)
    await leaveClaimOfDeadRequest(app.baton.db, 'key-died-before', unregistered.agent.wallet)
    const registeredNow = await post('/api/v1/agents', unregistered.body, 'key-died-before')
    expect(registeredNow.statusCode).toBe(201)
    expect(registeredNow.headers['idempotent-replayed']).toBeUndefined()
    expect(await agentsOf(unregistered.agent.wallet)).toHaveLength(1)
  })

  it('does not answer a retry with an agent its request did not register', async () => {
    // The agent under the wallet is another's registration (another nonce): the retry is
    // carried out, and refused as a conflict.
    const { body } = await signedRegistration()
    const first = await post('/api/v1/agents', body, 'key-not-mine')
    expect(first.statusCode).toBe(201)
    await sql`delete from registration_nonces where nonce = ${body.nonce.toLowerCase()}`.execute(
      app.baton.db,
    )
    await leaveClaimOfDeadRequest(app.baton.db, 'key-not-mine', body.agent.wallet)
    const retried = await post('/api/v1/agents', body, 'key-not-mine')
    expect(retried.statusCode).toBe(409)
    expect(retried.json().error.code).toBe('CONFLICT')
  })

  const swarm = (id: string) => ({
    id,
    name: `Swarm ${id}`,
    strategy: 'democratic',
    agents: [{ agentId: 'analyst', role: 'worker' }],
  })
  const swarmsWithId = async (id: string) =>
    (await sql<{ id: string }>`select id from swarms where id = ${id}`.execute(app.baton.db)).rows

  it('answers a retried swarm creation with its first answer, and one whose process died after storing it with the swarm', async () => {
    const first = await post('/api/v1/swarms', swarm('keyed-team'), 'key-swarm-create')
    const second = await post('/api/v1/swarms', swarm('keyed-team'), 'key-swarm-create')
    expect(first.statusCode).toBe(201)
    expect(second.statusCode).toBe(201)
    expect(second.headers['idempotent-replayed']).toBe('true')
    expect(second.json()).toEqual(first.json())
    expect(await swarmsWithId('keyed-team')).toHaveLength(1)
    // The same key for another swarm: refused, nothing created.
    const reused = await post('/api/v1/swarms', swarm('other-keyed-team'), 'key-swarm-create')
    expect(reused.statusCode).toBe(422)
    expect(await swarmsWithId('other-keyed-team')).toEqual([])

    expect((await post('/api/v1/swarms', swarm('died-team'), 'key-swarm-died')).statusCode).toBe(
      201,
    )
    await leaveClaimOfDeadRequest(app.baton.db, 'key-swarm-died', 'died-team')
    const recovered = await post('/api/v1/swarms', swarm('died-team'), 'key-swarm-died')
    expect(recovered.statusCode).toBe(201)
    expect(recovered.headers['idempotent-replayed']).toBe('true')
    expect(recovered.json().swarm).toMatchObject({ id: 'died-team', name: 'Swarm died-team' })
    // A swarm of that id that is not what the request asked is not its answer.
    await post('/api/v1/swarms', swarm('changed-team'), 'key-swarm-changed')
    await sql`update swarms set record = jsonb_set(record, '{name}', '"Renamed"') where id = 'changed-team'`.execute(
      app.baton.db,
    )
    await leaveClaimOfDeadRequest(app.baton.db, 'key-swarm-changed', 'changed-team')
    const conflict = await post('/api/v1/swarms', swarm('changed-team'), 'key-swarm-changed')
    expect(conflict.statusCode).toBe(409)
  })

  it('answers a retried allow or stop of an escalation with its first answer, and one whose process died after deciding with the decision', async () => {
    const held = async (correlationId: string) => {
      expect((await loopUntilHeld(base, correlationId)).code).toBe('LOOP_GUARD_ESCALATED')
      return (await storedEscalation(base, correlationId)).id
    }
    const allowing = await held(`allow-${backend}`)
    const allowed = await post(
      `/api/v1/escalations/${allowing}/allow`,
      { extraHops: 2 },
      'key-allow',
    )
    const allowedAgain = await post(
      `/api/v1/escalations/${allowing}/allow`,
      { extraHops: 2 },
      'key-allow',
    )
    expect(allowed.statusCode).toBe(200)
    expect(allowedAgain.statusCode).toBe(200)
    expect(allowedAgain.headers['idempotent-replayed']).toBe('true')
    expect(allowedAgain.json()).toEqual(allowed.json())
    expect(allowed.json().escalation).toMatchObject({ status: 'allowed', extraHops: 2 })
    // Another decision on it is still refused: it was decided.
    const stopAfter = await post(`/api/v1/escalations/${allowing}/stop`, { reason: 'late' })
    expect(stopAfter.statusCode).toBe(409)

    const stopping = await held(`stop-${backend}`)
    const stopped = await post(
      `/api/v1/escalations/${stopping}/stop`,
      { reason: 'enough' },
      'key-stop',
    )
    expect(stopped.statusCode).toBe(200)
    await leaveClaimOfDeadRequest(app.baton.db, 'key-stop', stopping)
    const recovered = await post(
      `/api/v1/escalations/${stopping}/stop`,
      { reason: 'enough' },
      'key-stop',
    )
    expect(recovered.statusCode).toBe(200)
    expect(recovered.headers['idempotent-replayed']).toBe('true')
    expect(recovered.json().escalation).toMatchObject({
      id: stopping,
      status: 'stopped',
      reason: 'enough',
    })
  })

  it("answers a retried change or revocation of an agent with its first answer, not as the signature's replay or an agent gone", async () => {
    const { agent, creator, body } = await signedRegistration()
    expect((await post('/api/v1/agents', body)).statusCode).toBe(201)
    const url = `/api/v1/agents/${agent.wallet}`
    const change = await signAgentChange('update', agent, {
      registry: testRegistryId,
      creator,
      changes: { name: 'Renamed once' },
    })
    const changed = await twice('PATCH', url, change, 'key-change')
    expect(changed.statusCode).toBe(200)
    expect(changed.json().agent.name).toBe('Renamed once')
    // Without the key, the signature sent again is a replay, as it was.
    expect((await call('PATCH', url, change)).json().error.code).toBe('SIGNATURE_REPLAYED')
    // Its process died after the change: the agent as it is now.
    const later = await signAgentChange('update', agent, {
      registry: testRegistryId,
      creator,
      changes: { name: 'Renamed twice' },
    })
    expect((await call('PATCH', url, later, 'key-change-died')).statusCode).toBe(200)
    await leaveClaimOfDeadRequest(app.baton.db, 'key-change-died', agent.wallet)
    const recovered = await call('PATCH', url, later, 'key-change-died')
    expect(recovered.statusCode).toBe(200)
    expect(recovered.headers['idempotent-replayed']).toBe('true')
    expect(recovered.json().agent.name).toBe('Renamed twice')

    const revoke = await signAgentChange('revoke', agent, { registry: testRegistryId, creator })
    const revoked = await twice('DELETE', url, revoke, 'key-revoke')
    expect(revoked.json()).toEqual({ revoked: agent.wallet })
    expect((await call('DELETE', url, revoke)).statusCode).toBe(404)
    await leaveClaimOfDeadRequest(app.baton.db, 'key-revoke', agent.wallet)
    const revokedAgain = await call('DELETE', url, revoke, 'key-revoke')
    expect(revokedAgain.statusCode).toBe(200)
    expect(revokedAgain.headers['idempotent-replayed']).toBe('true')
  })

  it('answers a retried change or deletion of a swarm with its first answer, undoing no change made meanwhile', async () => {
    expect((await post('/api/v1/swarms', swarm('changing-team'))).statusCode).toBe(201)
    const url = '/api/v1/swarms/changing-team'
    const first = await call('PATCH', url, { name: 'First name' }, 'key-swarm-patch')
    expect(first.statusCode).toBe(200)
    // Another change lands before the first one's retry: the retry does not undo it.
    expect((await call('PATCH', url, { name: 'Second name' })).statusCode).toBe(200)
    const retried = await call('PATCH', url, { name: 'First name' }, 'key-swarm-patch')
    expect(retried.headers['idempotent-replayed']).toBe('true')
    expect(retried.json()).toEqual(first.json())
    const stored = await app.inject({ method: 'GET', url })
    expect(stored.json().swarm.name).toBe('Second name')

    const deleted = await twice('DELETE', url, undefined, 'key-swarm-delete')
    expect(deleted.json()).toEqual({ deleted: 'changing-team' })
    expect((await call('DELETE', url, undefined)).statusCode).toBe(404)
    await leaveClaimOfDeadRequest(app.baton.db, 'key-swarm-delete', 'changing-team')
    const recovered = await call('DELETE', url, undefined, 'key-swarm-delete')
    expect(recovered.statusCode).toBe(200)
    expect(recovered.headers['idempotent-replayed']).toBe('true')
  })

  const runStatus = async (id: string) =>
    (await app.inject({ method: 'GET', url: `/api/v1/runs/${id}` })).json().status as string
  const pausedRun = async () => {
    const started = await post('/api/v1/runs', {
      plan: {
        name: 'approval',
        steps: [
          { op: 'ask_user', question: 'Ship it?', saveAs: 'decision' },
          { op: 'stop', output: 'shipped: {{decision}}' },
        ],
      },
    })
    expect(started.statusCode).toBe(202)
    const { id } = started.json() as { id: string }
    await waitFor(async () => ((await runStatus(id)) === 'paused' ? true : undefined), {
      what: `run ${id} to pause`,
    })
    return id
  }

  it('answers a retried answer, cancel or resume of a run with its first answer, not 409 for the run it set going', async () => {
    const answering = await pausedRun()
    const answered = await twice(
      'POST',
      `/api/v1/runs/${answering}/answer`,
      { answer: 'yes', question: 'Ship it?' },
      'key-answer',
    )
    expect(answered.statusCode).toBe(202)
    await waitFor(async () => ((await runStatus(answering)) === 'done' ? true : undefined), {
      what: 'the answered run to end',
    })
    const output = (await app.inject({ method: 'GET', url: `/api/v1/runs/${answering}` })).json()
    expect(output.output).toBe('shipped: yes')

    const cancelling = await pausedRun()
    const cancelled = await twice('POST', `/api/v1/runs/${cancelling}/cancel`, {}, 'key-cancel')
    expect(cancelled.json().status).toBe('cancelled')

    // A run stopped mid-way (as a restart leaves one running): resumed once.
    const resuming = await pausedRun()
    await sql`update runs set status = 'interrupted' where id = ${resuming}`.execute(app.baton.db)
    const resumed = await twice('POST', `/api/v1/runs/${resuming}/resume`, {}, 'key-resume')
    expect(resumed.statusCode).toBe(202)
    expect((await post(`/api/v1/runs/${resuming}/resume`, {})).statusCode).toBe(409)
  })
})
