import { Agent } from '@baton/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTestDatabase } from '../__fixtures__/test-database'
import type { AgentsRepository } from '../db/agents-repository'
import type { OpenedDatabase } from '../db/open-database'
import { createRepositories } from '../db/repositories'
import { cacheAgentListing } from './cache-agent-listing'
import { createDatabaseRegistry } from './create-database-registry'

const agentNumbered = (index: number) =>
  Agent.parse({
    id: `listed-${index}`,
    wallet: `0x${String(index).padStart(40, '0')}`,
    creator: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    name: `Listed ${index}`,
    type: 'worker',
    model: 'offline:default',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  })

describe('cacheAgentListing', () => {
  let opened: OpenedDatabase
  let stored: AgentsRepository
  beforeAll(async () => {
    opened = await openTestDatabase('pglite')
    stored = createRepositories(opened.db).agents
  })
  afterAll(async () => {
    await opened.db.destroy()
  })
  const ids = (page: { agents: Agent[] }) => page.agents.map((agent) => agent.id)
  const firstPage = { limit: 50, offset: 0 }

  it('answers an unchanged page from memory, and a write through it or an invalidation drops it', async () => {
    const listing = cacheAgentListing(stored)
    await listing.agents.insert(agentNumbered(1), 'test')
    expect(ids(await listing.agents.list(firstPage))).toEqual(['listed-1'])

    // Written behind its back (another process): the page stays as it was until invalidated.
    await stored.insert(agentNumbered(2), 'test')
    expect(ids(await listing.agents.list(firstPage))).toEqual(['listed-1'])
    listing.invalidate()
    expect(ids(await listing.agents.list(firstPage))).toEqual(['listed-1', 'listed-2'])

    // A write through the cached repository drops every page itself.
    await listing.agents.revoke(agentNumbered(1), 'test')
    expect(await listing.agents.list(firstPage)).toMatchObject({ total: 1 })
    expect(ids(await listing.agents.list({ ...firstPage, text: 'Listed 2' }))).toEqual(['listed-2'])
  })

  it('is dropped by every invalidation of the registry that reads through it', async () => {
    const listing = cacheAgentListing(stored)
    const registry = createDatabaseRegistry(listing.agents, { onInvalidate: listing.invalidate })
    const before = (await listing.agents.list(firstPage)).total
    await stored.insert(agentNumbered(3), 'test')
    expect((await listing.agents.list(firstPage)).total).toBe(before)
    registry.invalidate(agentNumbered(3).wallet)
    expect((await listing.agents.list(firstPage)).total).toBe(before + 1)
  })

  it('forgets a page after its time to live, even with no invalidation', async () => {
    let clock = 0
    const listing = cacheAgentListing(stored, { ttlMs: 1_000, now: () => clock })
    const before = (await listing.agents.list(firstPage)).total
    await stored.insert(agentNumbered(4), 'test')
    clock = 999
    expect((await listing.agents.list(firstPage)).total).toBe(before)
    clock = 1_000
    expect((await listing.agents.list(firstPage)).total).toBe(before + 1)
  })
})

describe('cacheAgentListing, an agent by id', () => {
  it('answers a card from memory until the agent changes', async () => {
    const opened = await openTestDatabase('pglite')
    try {
      const stored = createRepositories(opened.db).agents
      const listing = cacheAgentListing(stored)
      const agent = agentNumbered(7)
      expect(await listing.agents.findById(agent.id)).toBeUndefined()
      await listing.agents.insert(agent, 'test')
      expect((await listing.agents.findById(agent.id))?.name).toBe('Listed 7')
      const registration = await listing.agents.registrationOf(agent.wallet)
      expect(registration).toBeDefined()
      // Changed behind its back: the cached card stays until an invalidation.
      const before = (await stored.findSigned(agent.wallet))?.record
      expect(await stored.update({ ...agent, name: 'Renamed' }, 'test', before)).toBe(true)
      expect((await listing.agents.findById(agent.id))?.name).toBe('Listed 7')
      listing.invalidate()
      expect((await listing.agents.findById(agent.id))?.name).toBe('Renamed')
      await listing.agents.revoke(agent, 'test')
      expect(await listing.agents.findById(agent.id)).toBeUndefined()
      await listing.agents.insert(agent, 'test')
      expect(await listing.agents.registrationOf(agent.wallet)).not.toBe(registration)
    } finally {
      await opened.db.destroy()
    }
  })
})
