import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenTestApp } from '../__fixtures__/listen-test-app'

const adminToken = 'swarms-admin-token-0123456789'
let app: FastifyInstance
let base: string
let alice: string
let bob: string
let reader: string

// biome-ignore lint/suspicious/noExplicitAny: the test reads each answer's fields as JSON
type Answer = { status: number; body: Record<string, any> }

/** One request over real HTTP to the listening server. */
async function call(method: string, path: string, key?: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: response.status, body: (await response.json()) as Answer['body'] }
}

async function makeKey(name: string, scopes: string[]): Promise<string> {
  const made = await call('POST', '/api/v1/keys', adminToken, { name, scopes })
  expect(made.status).toBe(201)
  return made.body.key
}

const issuePaths = (answer: Answer) =>
  (answer.body.error.details.issues as { path: string }[]).map((issue) => issue.path)

let created = 0
async function createSwarm(key: string): Promise<string> {
  const id = `team-${++created}`
  const answer = await call('POST', '/api/v1/swarms', key, {
    id,
    name: `Team ${created}`,
    strategy: 'democratic',
    agents: [{ agentId: 'analyst', role: 'worker' }],
  })
  expect(answer.status).toBe(201)
  return id
}

beforeAll(async () => {
  ;({ app, base } = await listenTestApp({ settings: { apiToken: adminToken, publicReads: true } }))
  alice = await makeKey('alice', ['read', 'run', 'register'])
  bob = await makeKey('bob', ['read', 'run', 'register'])
  reader = await makeKey('reader', ['read'])
})
afterAll(async () => {
  await app.close()
})

describe('PATCH /api/v1/swarms/:id', () => {
  it('changes the members, strategy and description the owner sends, and keeps the rest', async () => {
    const id = await createSwarm(alice)
    const changed = await call('PATCH', `/api/v1/swarms/${id}`, alice, {
      strategy: 'hierarchical',
      description: 'Reviews releases',
      agents: [
        { agentId: 'orchestrator', role: 'leader' },
        { agentId: 'reviewer', role: 'critic', weight: 0.5 },
      ],
    })
    expect(changed.status).toBe(200)
    const read = await call('GET', `/api/v1/swarms/${id}`, reader)
    expect(read.body.swarm).toEqual(changed.body.swarm)
    expect(read.body.swarm).toMatchObject({
      id,
      name: `Team ${created}`,
      strategy: 'hierarchical',
      description: 'Reviews releases',
      consensusThreshold: 0.5,
      agents: [
        { agentId: 'orchestrator', role: 'leader', weight: 1 },
        { agentId: 'reviewer', role: 'critic', weight: 0.5 },
      ],
    })
    // A start with a key it does not know (a misspelt budget) is refused, naming it.
    const misspelt = await call('POST', `/api/v1/swarms/${id}/runs`, alice, {
      input: 'Ship it?',
      budjet: { calls: 1 },
    })
    expect(misspelt.status).toBe(400)
    expect(JSON.stringify(misspelt.body)).toContain('Unrecognized key: \\"budjet\\"')
    // A run started after the change runs the changed members.
    const started = await call('POST', `/api/v1/swarms/${id}/runs`, alice, { input: 'Ship it?' })
    expect(started.status).toBe(202)
    const run = await call('GET', `/api/v1/runs/${started.body.runId}`, alice)
    expect(JSON.stringify(run.body)).toContain('reviewer')
    expect(JSON.stringify(run.body)).not.toContain('"analyst"')
  })

  it('clears an optional field given null and puts a defaulted one back to its default', async () => {
    const id = await createSwarm(alice)
    await call('PATCH', `/api/v1/swarms/${id}`, alice, {
      description: 'x',
      consensusThreshold: 0.9,
    })
    const cleared = await call('PATCH', `/api/v1/swarms/${id}`, alice, {
      description: null,
      consensusThreshold: null,
    })
    expect(cleared.status).toBe(200)
    expect(cleared.body.swarm).not.toHaveProperty('description')
    expect(cleared.body.swarm.consensusThreshold).toBe(0.5)
  })

  it('refuses an invalid change with 400, naming each field, and stores nothing', async () => {
    const id = await createSwarm(alice)
    const badStrategy = await call('PATCH', `/api/v1/swarms/${id}`, alice, { strategy: 'anarchy' })
    expect(badStrategy.status).toBe(400)
    expect(badStrategy.body.error.code).toBe('VALIDATION_FAILED')
    expect(issuePaths(badStrategy)).toEqual(['strategy'])

    const twoLeaders = await call('PATCH', `/api/v1/swarms/${id}`, alice, {
      agents: [
        { agentId: 'orchestrator', role: 'leader' },
        { agentId: 'reviewer', role: 'leader' },
      ],
    })
    expect(twoLeaders.status).toBe(400)
    expect(issuePaths(twoLeaders)).toEqual(['agents[1].role'])

    const stranger = await call('PATCH', `/api/v1/swarms/${id}`, alice, {
      agents: [{ agentId: 'nobody', role: 'worker' }],
    })
    expect(stranger.status).toBe(400)
    expect(stranger.body.error.message).toBe(
      'Invalid swarm: agents[0].agentId: no registered agent has the id "nobody"',
    )
    expect(issuePaths(stranger)).toEqual(['agents[0].agentId'])

    const required = await call('PATCH', `/api/v1/swarms/${id}`, alice, { name: null })
    expect(required.status).toBe(400)
    expect(issuePaths(required)[0]).toContain('name')

    const renamed = await call('PATCH', `/api/v1/swarms/${id}`, alice, { id: 'other', colour: 1 })
    expect(renamed.status).toBe(400)
    expect(issuePaths(renamed)).toEqual(['id', 'colour'])
    expect(renamed.body.error.message).toContain("id: a swarm's id cannot change")

    const empty = await call('PATCH', `/api/v1/swarms/${id}`, alice, {})
    expect(empty.status).toBe(400)

    // A member's misspelt key is named too: dropped, the member would get the default weight.
    const misspelt = await call('PATCH', `/api/v1/swarms/${id}`, alice, {
      agents: [{ agentId: 'reviewer', role: 'critic', wieght: 0.2 }],
    })
    expect(misspelt.status).toBe(400)
    expect(misspelt.body.error.message).toBe(
      'Invalid swarm change: agents[0].wieght: is not a known field',
    )

    const stored = await call('GET', `/api/v1/swarms/${id}`, alice)
    expect(stored.body.swarm).toMatchObject({
      strategy: 'democratic',
      agents: [{ agentId: 'analyst', role: 'worker' }],
    })
  })

  it('answers 404 for a swarm nobody created', async () => {
    const missing = await call('PATCH', '/api/v1/swarms/no-such-team', alice, { name: 'X' })
    expect(missing.status).toBe(404)
    expect(missing.body.error.code).toBe('NOT_FOUND')
  })
})

describe('POST /api/v1/swarms', () => {
  it('refuses a swarm with a key it does not know (a misspelt trust floor) with 400 naming it, and creates nothing', async () => {
    // Dropped, the swarm would run members of any trust tier.
    const answer = await call('POST', '/api/v1/swarms', alice, {
      id: 'floorless',
      name: 'Floorless',
      strategy: 'democratic',
      minTrustTeir: 'high',
      agents: [{ agentId: 'analyst', role: 'worker' }],
    })
    expect(answer.status).toBe(400)
    expect(answer.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'Invalid swarm: minTrustTeir: is not a known field',
    })
    expect(issuePaths(answer)).toEqual(['minTrustTeir'])
    expect((await call('GET', '/api/v1/swarms/floorless', alice)).status).toBe(404)
  })
})

describe('DELETE /api/v1/swarms/:id', () => {
  it('deletes the owner’s swarm; its runs stay readable; a second delete is 404', async () => {
    const id = await createSwarm(alice)
    const started = await call('POST', `/api/v1/swarms/${id}/runs`, alice, { input: 'Go' })
    expect(started.status).toBe(202)
    const deleted = await call('DELETE', `/api/v1/swarms/${id}`, alice)
    expect(deleted).toEqual({ status: 200, body: { deleted: id } })
    expect((await call('GET', `/api/v1/swarms/${id}`, alice)).status).toBe(404)
    const listed = await call('GET', '/api/v1/swarms', alice)
    expect(listed.body.swarms.map((swarm: { id: string }) => swarm.id)).not.toContain(id)
    expect((await call('POST', `/api/v1/swarms/${id}/runs`, alice, { input: 'Go' })).status).toBe(
      404,
    )
    expect((await call('GET', `/api/v1/runs/${started.body.runId}`, alice)).status).toBe(200)
    expect((await call('DELETE', `/api/v1/swarms/${id}`, alice)).status).toBe(404)
  })
})

describe('who may change or delete a swarm', () => {
  it('refuses another key 403, a read-only key 403 and no credential 401, and changes nothing', async () => {
    const id = await createSwarm(alice)
    for (const [key, status] of [
      [bob, 403],
      [reader, 403],
      [undefined, 401],
    ] as const) {
      const patched = await call('PATCH', `/api/v1/swarms/${id}`, key, { name: 'Taken over' })
      expect(patched.status).toBe(status)
      const deleted = await call('DELETE', `/api/v1/swarms/${id}`, key)
      expect(deleted.status).toBe(status)
    }
    expect((await call('PATCH', `/api/v1/swarms/${id}`, bob, { name: 'x' })).body.error.code).toBe(
      'FORBIDDEN',
    )
    const stored = await call('GET', `/api/v1/swarms/${id}`, alice)
    expect(stored.body.swarm.name).toBe(`Team ${created}`)
  })

  it('lets an admin change and delete anyone’s swarm, the seeded one too', async () => {
    const id = await createSwarm(alice)
    expect(
      (await call('PATCH', `/api/v1/swarms/${id}`, adminToken, { name: 'Admin’s' })).status,
    ).toBe(200)
    expect((await call('DELETE', `/api/v1/swarms/${id}`, adminToken)).status).toBe(200)
    // The seeded swarm belongs to nobody in particular (anonymous): only admins change it here.
    expect((await call('PATCH', '/api/v1/swarms/dev-team', alice, { maxRounds: 2 })).status).toBe(
      403,
    )
    const seeded = await call('PATCH', '/api/v1/swarms/dev-team', adminToken, { maxRounds: 2 })
    expect(seeded.status).toBe(200)
    expect(seeded.body.swarm.maxRounds).toBe(2)
  })
})
