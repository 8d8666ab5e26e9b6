import { Agent, AgentSwarm } from '@baton/core'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends } from '../__fixtures__/backends'
import { openTestRepositories } from '../__fixtures__/test-database'
import { createDatabaseMemoryStore } from './memory-repository'
import { migrate, type OpenedDatabase } from './open-database'
import { createRepositories, type Repositories } from './repositories'

/** A direct message from `person` to `analyst`, `hi`, with a fixed time (compared whole). */
const envelopeOf = (id: string, correlationId: string) => ({
  id,
  from: { agentId: 'person' },
  to: { agentId: 'analyst' },
  content: 'hi',
  type: 'direct' as const,
  correlationId,
  hop: 0,
  createdAt: '2026-12-06T10:00:00.000Z',
})

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

  it('stores a swarm with its owner, replaces its record keeping the owner, and deletes it', async () => {
    const swarm = AgentSwarm.parse({
      id: 'owned-team',
      name: 'Owned',
      strategy: 'democratic',
      agents: [{ agentId: 'a', role: 'worker' }],
    })
    expect(await repositories.swarms.insert(swarm, 'key:alice')).toBe(true)
    expect(await repositories.swarms.insert(swarm, 'key:bob')).toBe(false)
    const changed = { ...swarm, strategy: 'round-robin' as const }
    expect(await repositories.swarms.update(changed)).toBe(true)
    expect(await repositories.swarms.findOwned('owned-team')).toEqual({
      swarm: changed,
      owner: 'key:alice',
    })
    expect(await repositories.swarms.update({ ...changed, id: 'no-such-team' })).toBe(false)
    // A change is applied to the record as stored when it is written: one written by another
    // between its read and its write is read again, and kept.
    let others = 0
    const renamed = await repositories.swarms.change('owned-team', async (current) => {
      if (others < 2) {
        others += 1
        await repositories.swarms.update({ ...current, maxRounds: current.maxRounds + 1 })
      }
      return { ...current, name: 'Renamed' }
    })
    expect(renamed).toMatchObject({ name: 'Renamed', maxRounds: swarm.maxRounds + 2 })
    expect(await repositories.swarms.find('owned-team')).toEqual(renamed)
    expect(await repositories.swarms.change('no-such-team', (current) => current)).toBeUndefined()
    // One that others change at every try gives up, typed (409), having written nothing.
    await expect(
      repositories.swarms.change('owned-team', async (current) => {
        await repositories.swarms.update({ ...current, maxRounds: current.maxRounds + 1 })
        return { ...current, name: 'Never' }
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' })
    expect((await repositories.swarms.find('owned-team'))?.name).toBe('Renamed')
    expect(await repositories.swarms.remove('owned-team')).toBe(true)
    expect(await repositories.swarms.find('owned-team')).toBeUndefined()
    expect(await repositories.swarms.remove('owned-team')).toBe(false)
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
    expect(await runs.changeStatus('run-commit', { from: 'queued', to: 'running' })).toBe(true)
    expect(await runs.interruptUnfinished()).toContain('run-commit')
    expect((await runs.find('run-commit'))?.status).toBe('interrupted')
  })

  it('claims a queued or running run to execute, and never a run that finished between its job and its claim', async () => {
    const { runs } = repositories
    await runs.create({ id: 'claim-queued', kind: 'plan', plan: {}, inputs: {} })
    const first = await runs.claimToExecute('claim-queued', 'here')
    expect(first?.run.status).toBe('queued')
    expect(first?.attempt).toBe(1)
    // Its executor died: another process takes it over (the row said `running`).
    const takeover = await runs.claimToExecute('claim-queued', 'there')
    expect(takeover?.run).toMatchObject({ status: 'running', executedBy: 'here' })
    expect(takeover?.attempt).toBe(2)
    // The first process finished it before a late job's claim: the claim leaves it as it is,
    // so its steps are not run (and stored) a second time.
    await runs.finish({
      runId: 'claim-queued',
      status: 'done',
      output: 'ok',
      error: null,
      usage: { calls: 0, tokens: 0, costUsd: 0 },
      usageByWallet: {},
      state: null,
      question: null,
    })
    const late = await runs.claimToExecute('claim-queued', 'elsewhere')
    expect(late?.attempt).toBe(0)
    expect(await runs.find('claim-queued')).toMatchObject({
      status: 'done',
      executedBy: 'there',
      attempt: 2,
    })
    expect(await runs.claimToExecute('claim-missing', 'here')).toBeUndefined()
  })

  it('keeps the end of a run that ended between a cancel’s read and its write (no cancelled over done)', async () => {
    const { runs } = repositories
    const usage = { calls: 1, tokens: 10, costUsd: 0.001 }
    const end = (status: 'done' | 'cancelled', executedBy?: string) =>
      runs.finish({
        runId: 'ended-then-cancelled',
        status,
        output: status === 'done' ? 'the report' : null,
        error: status === 'done' ? null : { code: 'CANCELLED', message: 'The run was cancelled.' },
        usage,
        usageByWallet: {},
        state: null,
        question: null,
        ...(executedBy ? { executedBy } : {}),
      })
    await runs.create({ id: 'ended-then-cancelled', kind: 'plan', plan: {}, inputs: {} })
    await runs.claimToExecute('ended-then-cancelled', 'there')
    // A cancel in this process reads it running in another, which then ends it: the cancel's
    // end, written after, is refused.
    const read = await runs.find('ended-then-cancelled')
    expect(read?.status).toBe('running')
    await end('done', 'there')
    await end('cancelled')
    expect(await runs.find('ended-then-cancelled')).toMatchObject({
      status: 'done',
      output: 'the report',
      error: null,
    })
    // A run that has not ended is cancelled by it.
    await runs.create({ id: 'cancelled-running', kind: 'plan', plan: {}, inputs: {} })
    await runs.claimToExecute('cancelled-running', 'there')
    await runs.finish({
      runId: 'cancelled-running',
      status: 'cancelled',
      output: null,
      error: { code: 'CANCELLED', message: 'The run was cancelled.' },
      usage,
      usageByWallet: {},
      state: null,
      question: null,
    })
    expect((await runs.find('cancelled-running'))?.status).toBe('cancelled')
  })

  it('at a stop, interrupts runs that ran, keeps never-started ones queued, and discards only an unstarted run', async () => {
    const { runs } = repositories
    const create = (id: string) => runs.create({ id, kind: 'plan', plan: {}, inputs: {} })
    await create('stop-ran')
    await create('stop-never')
    await create('stop-resumed')
    await runs.claim('stop-ran', 'here')
    await runs.claim('stop-resumed', 'here')
    // Changed only from the status it is in: a second change from the same status is refused.
    expect(await runs.changeStatus('stop-resumed', { from: 'running', to: 'queued' })).toBe(true)
    expect(await runs.changeStatus('stop-resumed', { from: 'running', to: 'queued' })).toBe(false)
    const interrupted = await runs.interruptUnfinished()
    expect(interrupted).toEqual(expect.arrayContaining(['stop-ran', 'stop-resumed']))
    expect(interrupted).not.toContain('stop-never')
    expect((await runs.find('stop-never'))?.status).toBe('queued')
    expect((await runs.neverStarted()).map((run) => run.id)).toContain('stop-never')
    // Looked at by age (among many processes, only those older than a living process's
    // queueing), one by one, and a few at a time.
    const justStored = (await runs.find('stop-never'))!.createdAt
    expect(
      await runs.neverStarted({ storedBefore: new Date(Date.parse(justStored) + 1_000) }),
    ).toContainEqual({ id: 'stop-never', kind: 'plan' })
    expect(
      await runs.neverStarted({ storedBefore: new Date(Date.parse(justStored)) }),
    ).not.toContainEqual({ id: 'stop-never', kind: 'plan' })
    expect(await runs.neverStarted({ id: 'stop-never' })).toEqual([
      { id: 'stop-never', kind: 'plan' },
    ])
    expect(await runs.neverStarted({ id: 'stop-ran' })).toEqual([])
    expect(await runs.neverStarted({ limit: 1 })).toHaveLength(1)
    expect(await runs.discardUnstarted('stop-ran')).toBe(false)
    expect(await runs.find('stop-ran')).toBeDefined()
    expect(await runs.discardUnstarted('stop-never')).toBe(true)
    expect(await runs.find('stop-never')).toBeUndefined()
  })

  it('claims a conversation for its first owner only, and stores an envelope once', async () => {
    const messages = repositories.messages
    expect(await messages.claimConversation('corr-claim', 'alice')).toBe('alice')
    // A second claimant is told who holds it, from a fresh repository (nothing remembered) too.
    expect(await messages.claimConversation('corr-claim', 'bob')).toBe('alice')
    expect(
      await createRepositories(opened.db).messages.claimConversation('corr-claim', 'bob'),
    ).toBe('alice')
    const envelope = envelopeOf('msg-once', 'corr-claim')
    expect(await messages.save(envelope)).toBe(true)
    // The bus's listener saving what the route stored: answered without a second row.
    expect(await messages.save(envelope)).toBe(false)
    expect(await createRepositories(opened.db).messages.save(envelope)).toBe(false)
    expect((await messages.conversation('corr-claim')).map((each) => each.id)).toEqual(['msg-once'])
    // A removed envelope (a send the bus refused) is stored again when it is sent again.
    await messages.remove('msg-once')
    expect(await messages.save(envelope)).toBe(true)
  })

  it('keeps a message stored before its send as not sent until the bus reports it, and out of what seeds the loop guard', async () => {
    const messages = createRepositories(opened.db).messages
    const sentEnvelope = (id: string) => envelopeOf(id, 'corr-sent')
    const sentSince = async () =>
      (await messages.since(new Date(0), 100, { sentOnly: true }))
        .filter((each) => each.correlationId === 'corr-sent')
        .map((each) => each.id)
    // Stored by the route, one way or the other, before the bus takes it.
    await messages.save(sentEnvelope('sent-1'))
    await messages.claimAndSave(sentEnvelope('sent-2'), 'alice', { anyOwner: false })
    expect(await messages.find('sent-1')).toMatchObject({ sent: false })
    expect(await messages.find('sent-2')).toMatchObject({ sent: false })
    expect(await sentSince()).toEqual([])
    // The bus reports one (a process that has not stored it: as one that died between).
    await createRepositories(opened.db).messages.record(sentEnvelope('sent-1'))
    expect(await messages.find('sent-1')).toEqual({ envelope: sentEnvelope('sent-1'), sent: true })
    // And one the route never stored (an agent's answer): stored as sent.
    await messages.record(sentEnvelope('sent-3'))
    expect(await sentSince()).toEqual(['sent-1', 'sent-3'])
    // Every stored message is the conversation's, sent or not.
    expect((await messages.conversation('corr-sent')).map((each) => each.id)).toEqual([
      'sent-1',
      'sent-2',
      'sent-3',
    ])
    expect(await messages.find('none')).toBeUndefined()
  })

  it('finds an escalation by its id, and lists those changed since a time, oldest change first', async () => {
    const escalationOf = (id: string, status: 'open' | 'allowed') => ({
      id,
      correlationId: `chain-${id}`,
      hops: 4,
      path: ['a', 'b'],
      lastMessage: envelopeOf(`held-${id}`, `chain-${id}`),
      status,
      createdAt: '2026-12-06T10:00:00.000Z',
    })
    const { messages } = repositories
    await messages.saveEscalation(escalationOf('esc-old', 'open'))
    await opened.db
      .updateTable('escalations')
      .set({ updated_at: new Date('2026-01-01T00:00:00Z') })
      .where('id', '=', 'esc-old')
      .execute()
    const since = new Date(Date.now() - 60_000)
    await messages.saveEscalation(escalationOf('esc-new', 'open'))
    await messages.saveEscalation({ ...escalationOf('esc-new', 'allowed'), extraHops: 2 })
    expect(await messages.escalation('esc-new')).toMatchObject({ status: 'allowed', extraHops: 2 })
    expect(await messages.escalation('esc-old')).toMatchObject({ status: 'open' })
    expect(await messages.escalation('esc-none')).toBeUndefined()
    const recent = (await messages.escalations(undefined, { since })).map((each) => each.id)
    expect(recent).toContain('esc-new')
    expect(recent).not.toContain('esc-old')
    expect((await messages.escalations('open')).map((each) => each.id)).toContain('esc-old')
  })

  it('claims a conversation and stores its message in one statement, and stores nothing in a conversation held by another', async () => {
    const ids = async (correlationId: string) =>
      (await createRepositories(opened.db).messages.conversation(correlationId)).map(
        (each) => each.id,
      )
    // Fresh repositories: nothing remembered, every answer from the statement itself.
    const fresh = () => createRepositories(opened.db).messages
    expect(
      await fresh().claimAndSave(envelopeOf('one-1', 'corr-one'), 'alice', { anyOwner: false }),
    ).toEqual({ owner: 'alice', stored: true })
    expect(
      await fresh().claimAndSave(envelopeOf('one-2', 'corr-one'), 'bob', { anyOwner: false }),
    ).toEqual({ owner: 'alice', stored: false })
    expect(await ids('corr-one')).toEqual(['one-1'])
    // An admin writes into anyone's conversation; its owner stays.
    expect(
      await fresh().claimAndSave(envelopeOf('one-3', 'corr-one'), 'root', { anyOwner: true }),
    ).toEqual({ owner: 'alice', stored: true })
    // The owner again (remembered now), and the same envelope twice: stored once.
    const messages = fresh()
    expect(
      await messages.claimAndSave(envelopeOf('one-4', 'corr-one'), 'alice', { anyOwner: false }),
    ).toEqual({ owner: 'alice', stored: true })
    expect(
      await messages.claimAndSave(envelopeOf('one-4', 'corr-one'), 'alice', { anyOwner: false }),
    ).toEqual({ owner: 'alice', stored: false })
    expect(await ids('corr-one')).toEqual(['one-1', 'one-3', 'one-4'])
    expect(await messages.conversationOwner('corr-one')).toBe('alice')
  })

  it('keeps a run file byte for byte, replaces one of the same name, and finds only exact names', async () => {
    await repositories.runs.create({
      id: 'run-files',
      kind: 'plan',
      plan: { steps: [] },
      inputs: {},
    })
    const name = 'steps[0]/screenshots/screenshot-1.png'
    const bytes = Uint8Array.from({ length: 300 }, (_, index) => index % 256)
    const save = (data: Uint8Array) =>
      repositories.runFiles.save({
        runId: 'run-files',
        name,
        stepPath: 'steps[0]',
        mediaType: 'image/png',
        data,
      })
    await save(bytes.slice(0, 10))
    await save(bytes)
    const found = await repositories.runFiles.find('run-files', name)
    expect(found).toMatchObject({ name, stepPath: 'steps[0]', mediaType: 'image/png' })
    expect(Buffer.from(found!.data).equals(Buffer.from(bytes))).toBe(true)
    expect(await repositories.runFiles.find('run-files', 'steps[0]/screenshots')).toBeUndefined()
    expect(await repositories.runFiles.find('run-other', name)).toBeUndefined()
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

  it("reads a scope's newest memory entries from an index, without sorting the scope's history", async () => {
    // The read of `createDatabaseMemoryStore`: a busy agent's history must not be sorted at
    // each message. Scans that need a sort are priced out so that the planner shows the index
    // it can use even on a table this small (with an index on `scope` alone, it must sort).
    const plan = await opened.db.transaction().execute(async (transaction) => {
      await sql`set local enable_seqscan = off`.execute(transaction)
      await sql`set local enable_bitmapscan = off`.execute(transaction)
      await sql`set local enable_sort = off`.execute(transaction)
      return transaction
        .selectFrom('memory_entries')
        .select('entry')
        .where('scope', '=', 'scope-b')
        .orderBy('id', 'desc')
        .limit(20)
        .explain()
    })
    const text = plan.map((row) => Object.values(row).join(' ')).join('\n')
    expect(text).toContain('memory_entries_scope_id')
    expect(text).not.toMatch(/\bSort\b/)
  })
})
