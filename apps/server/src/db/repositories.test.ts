import { Agent } from '@baton/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends } from '../__fixtures__/backends'
import { openTestRepositories } from '../__fixtures__/test-database'
import { createDatabaseMemoryStore } from './memory-repository'
import { migrate, type OpenedDatabase } from './open-database'
import type { Repositories } from './repositories'

describe.each(backends)('repositories on %s', (backend) => {
  let opened: OpenedDatabase
  let repositories: Repositories
  beforeAll(async () => {
    ;({ opened, repositories } = await openTestRepositories(backend))
  })
  afterAll(() => opened.db.destroy())

  it('runs migrations once: a second migrate changes nothing', async () => {
    await migrate(opened.db)
    const tables = await opened.db.introspection.getTables()
    expect(tables.map((table) => table.name)).toEqual(
      expect.arrayContaining(['agents', 'runs', 'run_steps', 'run_events', 'ledger', 'messages']),
    )
  })

  it('accepts a signature nonce once', async () => {
    expect(await repositories.agents.useNonce(`0x${'ab'.repeat(32)}`, 'signer')).toBe(true)
    expect(await repositories.agents.useNonce(`0x${'AB'.repeat(32)}`, 'signer')).toBe(false)
  })

  it('keeps a revoked agent history while find no longer returns it', async () => {
    const agent = Agent.parse({
      id: 'history-kept',
      wallet: '0x9999999999999999999999999999999999999999',
      creator: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      name: 'History',
      type: 'worker',
      model: 'offline:default',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    })
    await repositories.agents.insert(agent, agent.creator)
    await repositories.agents.revoke(agent, agent.creator)
    expect(await repositories.agents.find(agent.wallet)).toBeUndefined()
    expect(await repositories.agents.exists(agent.wallet)).toBe(true)
    expect((await repositories.agents.history(agent.wallet)).map((entry) => entry.change)).toEqual([
      'register',
      'revoke',
    ])
  })

  it('commits a step, its ledger entries and the run state together', async () => {
    const runs = repositories.runs
    await runs.create({ id: 'run-commit', kind: 'plan', plan: { steps: [] }, inputs: {} })
    const usage = { calls: 1, tokens: 10, costUsd: 0.001 }
    await runs.commitStep({
      runId: 'run-commit',
      step: {
        path: 'steps[0]',
        op: 'delegate',
        saveAs: 'a',
        value: 'answer',
        usage,
        wallet: '0x1111111111111111111111111111111111111111',
        durationMs: 12,
        sequence: 3,
        finishedAt: new Date().toISOString(),
      },
      events: [{ type: 'step-finish', sequence: 3, path: 'steps[0]' }],
      ledger: [{ wallet: '0x1111111111111111111111111111111111111111', usage }],
      state: { cursor: { index: 1 } },
      usage,
      usageByWallet: { '0x1111111111111111111111111111111111111111': usage },
    })
    const run = await runs.find('run-commit')
    expect(run?.state).toEqual({ cursor: { index: 1 } })
    expect((await runs.steps('run-commit'))[0]).toMatchObject({ path: 'steps[0]', value: 'answer' })
    expect((await runs.events('run-commit')).map((event) => event.sequence)).toEqual([3])
    const spend = await repositories.ledger.spend({ by: 'run' })
    expect(spend.find((row) => row.key === 'run-commit')).toMatchObject({
      calls: 1,
      costUsd: 0.001,
    })
    await runs.setStatus('run-commit', 'running')
    expect(await runs.interruptUnfinished()).toContain('run-commit')
    expect((await runs.find('run-commit'))?.status).toBe('interrupted')
  })

  it('at a stop, interrupts runs that ran, keeps never-started ones queued, and discards only an unstarted run', async () => {
    const { runs } = repositories
    const create = (id: string) => runs.create({ id, kind: 'plan', plan: {}, inputs: {} })
    await create('stop-ran')
    await create('stop-never')
    await create('stop-resumed')
    await runs.claim('stop-ran', 'here')
    await runs.claim('stop-resumed', 'here')
    await runs.setStatus('stop-resumed', 'queued')
    const interrupted = await runs.interruptUnfinished()
    expect(interrupted).toEqual(expect.arrayContaining(['stop-ran', 'stop-resumed']))
    expect(interrupted).not.toContain('stop-never')
    expect((await runs.find('stop-never'))?.status).toBe('queued')
    expect((await runs.neverStarted()).map((run) => run.id)).toContain('stop-never')
    expect(await runs.discardUnstarted('stop-ran')).toBe(false)
    expect(await runs.find('stop-ran')).toBeDefined()
    expect(await runs.discardUnstarted('stop-never')).toBe(true)
    expect(await runs.find('stop-never')).toBeUndefined()
  })

  it('stores memory per scope, newest last, and clears a scope', async () => {
    const memory = createDatabaseMemoryStore(opened.db)
    const at = new Date().toISOString()
    await memory.append('scope-a', [
      { role: 'user', content: 'one', createdAt: at },
      { role: 'assistant', content: 'two', createdAt: at },
    ])
    await memory.append('scope-b', [{ role: 'user', content: 'other', createdAt: at }])
    expect((await memory.read('scope-a')).map((entry) => entry.content)).toEqual(['one', 'two'])
    expect((await memory.read('scope-a', { limit: 1 })).map((entry) => entry.content)).toEqual([
      'two',
    ])
    await memory.clear('scope-a')
    expect(await memory.read('scope-a')).toEqual([])
    expect(await memory.read('scope-b')).toHaveLength(1)
  })
})
