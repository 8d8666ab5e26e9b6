import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends, databaseSettings } from '../__fixtures__/backends'
import { createTestApp } from '../__fixtures__/test-app'
import { seedDemo } from '../seed/seed-demo'

describe.each(backends)('changes of one swarm sent at once, on %s', (backend) => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp(await databaseSettings(backend))
    await seedDemo(app.baton)
  })
  afterAll(async () => {
    await app.close()
  })

  it('keeps every change of a different field (none lost to a read made before another write)', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/swarms',
      payload: {
        id: 'busy-team',
        name: 'Busy team',
        strategy: 'democratic',
        agents: [{ agentId: 'analyst', role: 'worker' }],
      },
    })
    expect(created.statusCode).toBe(201)
    const changes = [
      { name: 'Renamed team' },
      { description: 'Reviews releases' },
      { maxRounds: 5 },
      { consensusThreshold: 0.8 },
      { sharedContext: true },
      { communication: 'direct' },
      { minTrustTier: 'low' },
      { strategy: 'round-robin' },
    ]
    const answers = await Promise.all(
      changes.map((payload) =>
        app.inject({ method: 'PATCH', url: '/api/v1/swarms/busy-team', payload }),
      ),
    )
    expect(answers.map((answer) => answer.statusCode)).toEqual(changes.map(() => 200))
    const { swarm } = (await app.inject({ method: 'GET', url: '/api/v1/swarms/busy-team' })).json()
    expect(swarm).toMatchObject(Object.assign({}, ...changes))
    expect(swarm.agents).toMatchObject([{ agentId: 'analyst', role: 'worker' }])
  })
})
