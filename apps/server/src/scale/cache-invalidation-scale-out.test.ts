import { waitFor } from '@baton/testing/processes'
import { hasRedis } from '@baton/testing/redis'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { signedRegistration } from '../__fixtures__/signed-agents'
import { testRegistryId } from '../settings'
import type { ClusterProcess } from './__fixtures__/cluster'
import { scaleCluster } from './__fixtures__/scale-cluster'

const postgresUrl = inject('postgresUrl')
const canRun = (hasRedis && postgresUrl !== '') || process.env.CI === 'true'
if (!canRun) {
  console.warn('[cache invalidation tests] redis-server or PostgreSQL not found: skipping them.')
}

// Two processes on one PostgreSQL and one Redis: each answers the agent list and the swarms
// from its own copy; a change on one must reach the other (the agents' memory: see
// share-registry-invalidation.test.ts, where the process that runs an agent is chosen).
const cluster = scaleCluster('baton-scale-caches-')
// Well under the copies' 30 s lifetime: only the other process's announcement can drop them.
const announced = 10_000
let a: ClusterProcess
let b: ClusterProcess

beforeAll(async () => {
  if (!canRun) return
  ;[a, b] = (await cluster.start({
    postgresUrl,
    names: ['a', 'b'],
    environment: { BATON_REGISTRY_ID: testRegistryId },
  })) as [ClusterProcess, ClusterProcess]
}, 180_000)

afterAll(() => cluster.close(), 60_000)

async function send(url: string, method: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}
const get = (url: string) => send(url, 'GET')

describe.runIf(canRun)('caches of two processes on one Redis', () => {
  it('shows an agent registered on one process in the other’s list and registry', async () => {
    const listed = async (server: ClusterProcess) =>
      ((await get(`${server.url}/api/v1/agents?limit=100`)).json.agents as { id: string }[]).map(
        (agent) => agent.id,
      )
    // b's copy of the list (and a look-up of the wallet) before the change.
    const { body, agent } = await signedRegistration('cached-elsewhere')
    expect(await listed(b)).not.toContain('cached-elsewhere')
    expect((await get(`${b.url}/agent/${agent.wallet}`)).status).toBe(404)

    expect((await send(`${a.url}/api/v1/agents`, 'POST', body)).status).toBe(201)
    await waitFor(async () => ((await listed(b)).includes('cached-elsewhere') ? true : undefined), {
      what: "the new agent in b's list",
      timeoutMs: announced,
    })
    expect((await get(`${b.url}/agent/${agent.wallet}`)).json).toMatchObject({
      id: 'cached-elsewhere',
    })
  })

  it('shows a swarm created, changed and deleted on one process on the other', async () => {
    const swarm = {
      id: 'cached-swarm',
      name: 'Cached swarm',
      strategy: 'round-robin',
      agents: [
        { agentId: 'analyst', role: 'worker' },
        { agentId: 'reviewer', role: 'critic' },
      ],
    }
    const swarmIds = async (server: ClusterProcess) =>
      ((await get(`${server.url}/api/v1/swarms`)).json.swarms as { id: string }[]).map(
        (each) => each.id,
      )
    expect(await swarmIds(b)).not.toContain(swarm.id)
    expect((await get(`${b.url}/api/v1/swarms/${swarm.id}`)).status).toBe(404)

    expect((await send(`${a.url}/api/v1/swarms`, 'POST', swarm)).status).toBe(201)
    await waitFor(async () => ((await swarmIds(b)).includes(swarm.id) ? true : undefined), {
      what: "the new swarm in b's list",
      timeoutMs: announced,
    })
    expect((await get(`${b.url}/api/v1/swarms/${swarm.id}`)).json.swarm).toMatchObject({
      name: 'Cached swarm',
    })

    expect(
      (await send(`${a.url}/api/v1/swarms/${swarm.id}`, 'PATCH', { name: 'Renamed on a' })).status,
    ).toBe(200)
    await waitFor(
      async () => {
        const read = await get(`${b.url}/api/v1/swarms/${swarm.id}`)
        return (read.json.swarm as { name: string }).name === 'Renamed on a' ? true : undefined
      },
      { what: "the change in b's copy", timeoutMs: announced },
    )

    expect((await send(`${a.url}/api/v1/swarms/${swarm.id}`, 'DELETE')).status).toBeLessThan(300)
    await waitFor(
      async () =>
        (await get(`${b.url}/api/v1/swarms/${swarm.id}`)).status === 404 ? true : undefined,
      { what: 'the swarm gone from b', timeoutMs: announced },
    )
  })

  it('shows an agent registered on one process while Redis is away in the other’s list within seconds, and changes after it once Redis is back', async () => {
    const redis = cluster.redis!
    const listed = async (server: ClusterProcess) =>
      ((await get(`${server.url}/api/v1/agents?limit=100`)).json.agents as { id: string }[]).map(
        (agent) => agent.id,
      )
    const away = await signedRegistration('registered-while-away')
    const after = await signedRegistration('registered-after-outage')
    // b's copies, kept 30 s from now unless dropped.
    expect(await listed(b)).not.toContain('registered-while-away')
    expect((await get(`${b.url}/agent/${away.agent.wallet}`)).status).toBe(404)

    await redis.kill()
    try {
      // The announcement is lost: b cannot hear it, so b keeps nothing it may have missed.
      expect((await send(`${a.url}/api/v1/agents`, 'POST', away.body)).status).toBe(201)
      await waitFor(
        async () => ((await listed(b)).includes('registered-while-away') ? true : undefined),
        { what: "the agent in b's list while Redis is away", timeoutMs: 5_000 },
      )
      expect((await get(`${b.url}/agent/${away.agent.wallet}`)).json).toMatchObject({
        id: 'registered-while-away',
      })
    } finally {
      await redis.start()
    }
    // Announcements reach b again once Redis is back.
    await waitFor(
      async () => {
        const ready = await fetch(`${b.url}/ready`)
        return ready.status === 200 ? true : undefined
      },
      { what: 'b to be ready again', timeoutMs: 30_000 },
    )
    expect(await listed(b)).not.toContain('registered-after-outage')
    expect((await send(`${a.url}/api/v1/agents`, 'POST', after.body)).status).toBe(201)
    await waitFor(
      async () => ((await listed(b)).includes('registered-after-outage') ? true : undefined),
      { what: "the agent registered after the outage in b's list", timeoutMs: announced },
    )
  }, 90_000)
})
