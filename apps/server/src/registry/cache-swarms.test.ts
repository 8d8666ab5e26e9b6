import { AgentSwarm } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { countedTestDatabase } from '../__fixtures__/count-queries'
import { createSwarmsRepository } from '../db/swarms-repository'
import { cacheSwarms } from './cache-swarms'

const swarmNamed = (id: string, name = id) =>
  AgentSwarm.parse({
    id,
    name,
    strategy: 'round-robin',
    agents: [{ agentId: 'analyst', role: 'worker' }],
  })

describe('cacheSwarms', () => {
  const database = countedTestDatabase()

  it('answers the list and a swarm again without a query, until a write drops them and is announced', async () => {
    let announced = 0
    const { swarms } = cacheSwarms(createSwarmsRepository(database.counter.db), {
      onWrite: () => {
        announced += 1
      },
    })
    await swarms.insert(swarmNamed('cached-one'))
    expect(announced).toBe(1)
    expect((await swarms.list()).map((swarm) => swarm.id)).toContain('cached-one')
    expect((await swarms.find('cached-one'))?.name).toBe('cached-one')
    const afterFirstReads = database.counter.queries()
    await swarms.list()
    await swarms.find('cached-one')
    await swarms.findOwned('cached-one')
    expect(database.counter.queries()).toBe(afterFirstReads)

    await swarms.update(swarmNamed('cached-one', 'Renamed'))
    expect((await swarms.find('cached-one'))?.name).toBe('Renamed')
    await swarms.remove('cached-one')
    expect(await swarms.find('cached-one')).toBeUndefined()
    expect(announced).toBe(3)
  })

  it('sees a swarm written behind its back once invalidated (another process announced it)', async () => {
    const cached = cacheSwarms(createSwarmsRepository(database.counter.db))
    const before = (await cached.swarms.list()).length
    await createSwarmsRepository(database.opened.db).insert(swarmNamed('from-elsewhere'))
    expect(await cached.swarms.list()).toHaveLength(before)
    cached.invalidate()
    expect(await cached.swarms.list()).toHaveLength(before + 1)
  })
})
