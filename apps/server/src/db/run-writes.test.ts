import { randomUUID } from 'node:crypto'
import { CompiledQuery, type Kysely, type KyselyPlugin, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends } from '../__fixtures__/backends'
import { openTestDatabase } from '../__fixtures__/test-database'
import { RunTakenOverError } from '../scale/run-taken-over-error'
import type { Database } from './database'
import { createGroupCommit } from './group-commit'
import type { OpenedDatabase } from './open-database'
import { runClaimsStatement } from './run-claims'
import { type RunWrite, runWritesStatement } from './run-write-rows'
import { createRunsRepository } from './runs-repository'

const zero = { calls: 0, tokens: 0, costUsd: 0 }

/** Counts the statements sent through `db` (every one's result passes the plugins). */
function countStatements(db: Kysely<Database>) {
  const counter = { statements: 0 }
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      counter.statements += 1
      return args.result
    },
  }
  return { db: db.withPlugin(plugin), counter }
}

const step = (sequence: number) => ({
  path: 'steps[0]',
  op: 'delegate',
  saveAs: 'a',
  value: 'answer',
  usage: zero,
  wallet: null,
  durationMs: 1,
  sequence,
  finishedAt: new Date().toISOString(),
})

describe.each(backends)('runs written through the group commit on %s', (backend) => {
  let opened: OpenedDatabase
  beforeAll(async () => {
    opened = await openTestDatabase(backend)
  })
  afterAll(() => opened.db.destroy())

  it('stores the writes of concurrent runs in one statement, and refuses only the run taken over, writing nothing of it', async () => {
    const { db, counter } = countStatements(opened.db)
    const writer = createGroupCommit(db)
    const runs = createRunsRepository(db, writer)
    const ids = Array.from({ length: 4 }, () => randomUUID())
    await Promise.all(ids.map((id) => runs.create({ id, kind: 'plan', plan: {}, inputs: {} })))
    for (const id of ids) expect((await runs.claimToExecute(id, 'here'))?.attempt).toBe(1)
    // Its lease ran out: another process took the last run over.
    const [eventsRun, otherEventsRun, stepRun, lostRun] = ids as [string, string, string, string]
    await runs.claimToExecute(lostRun, 'there')
    const fresh = randomUUID()

    const before = counter.statements
    const results = await Promise.allSettled([
      runs.appendEvents(eventsRun, [{ type: 'run-start', sequence: 0 }], { executedBy: 'here' }),
      runs.appendEvents(otherEventsRun, [{ type: 'run-start', sequence: 0 }], {
        executedBy: 'here',
      }),
      runs.commitStep({
        runId: stepRun,
        step: step(1),
        events: [{ type: 'step-finish', sequence: 1, path: 'steps[0]' }],
        state: { cursor: { index: 1 } },
        usage: zero,
        usageByWallet: {},
        executedBy: 'here',
      }),
      runs.finish({
        runId: lostRun,
        status: 'done',
        output: 'mine',
        error: null,
        usage: zero,
        usageByWallet: {},
        state: null,
        question: null,
        steps: [step(1)],
        events: [{ type: 'run-finish', sequence: 2 }],
        executedBy: 'here',
      }),
      runs.create({ id: fresh, kind: 'plan', plan: {}, inputs: {} }),
    ])
    // One turn, one statement: the new run, the events, the commit and the refused end.
    expect(counter.statements - before).toBe(1)
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ])
    expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(RunTakenOverError)

    expect((await runs.events(eventsRun)).map((event) => event.type)).toEqual(['run-start'])
    expect((await runs.events(otherEventsRun)).map((event) => event.type)).toEqual(['run-start'])
    expect(await runs.find(stepRun)).toMatchObject({
      status: 'running',
      state: { cursor: { index: 1 } },
    })
    expect((await runs.steps(stepRun)).map((row) => row.sequence)).toEqual([1])
    expect(await runs.find(lostRun)).toMatchObject({
      status: 'running',
      executedBy: 'there',
      output: null,
    })
    expect(await runs.steps(lostRun)).toEqual([])
    expect(await runs.events(lostRun)).toEqual([])
    expect(await runs.find(fresh)).toMatchObject({ status: 'queued' })
  })

  it('stores two writes of one run in one turn one after the other, and a run end with a transaction of the turn', async () => {
    const { db, counter } = countStatements(opened.db)
    const writer = createGroupCommit(db)
    const runs = createRunsRepository(db, writer)
    const id = randomUUID()
    await runs.create({ id, kind: 'plan', plan: {}, inputs: {} })
    await runs.claimToExecute(id, 'here')
    const before = counter.statements
    const inTransaction = writer.transact(async (transaction) => {
      await transaction
        .updateTable('runs')
        .set({ question: 'asked in the turn' })
        .where('id', '=', id)
        .execute()
      return 'done'
    })
    await Promise.all([
      runs.appendEvents(id, [{ type: 'run-start', sequence: 0 }], { executedBy: 'here' }),
      runs.appendEvents(id, [{ type: 'step-start', sequence: 1 }], { executedBy: 'here' }),
      runs.finish({
        runId: id,
        status: 'done',
        output: 'ok',
        error: null,
        usage: zero,
        usageByWallet: {},
        state: null,
        question: null,
        events: [{ type: 'run-finish', sequence: 2 }],
        executedBy: 'here',
      }),
    ])
    expect(await inTransaction).toBe('done')
    // One transaction: the transact's update, then the run's three writes in turn.
    expect(counter.statements - before).toBe(4)
    expect((await runs.events(id)).map((event) => event.type)).toEqual([
      'run-start',
      'step-start',
      'run-finish',
    ])
    expect(await runs.find(id)).toMatchObject({ status: 'done', output: 'ok', question: null })

    // Refused in a transaction too: the run is no longer running, so nothing is written.
    await expect(
      runs.appendEvents(id, [{ type: 'late', sequence: 3 }], { executedBy: 'here' }),
    ).rejects.toBeInstanceOf(RunTakenOverError)
    expect(await runs.events(id)).toHaveLength(3)
  })

  it('sends one text whatever its rows, and finds each run by its key, not by a scan of every run', async () => {
    const write = (runId: string, update: boolean): RunWrite => ({
      runId,
      executedBy: 'here',
      ...(update ? { update: { state: { at: 1 }, usage: zero, usageByWallet: {} } } : {}),
      steps: [step(1)],
      events: [{ type: 'step-finish', sequence: 1 }],
      ledger: [{ wallet: '0xabc', usage: { calls: 1, tokens: 2, costUsd: 0 } }],
    })
    const text = (writes: RunWrite[]) => runWritesStatement(writes)!.compile(opened.db)
    const claims = (count: number) =>
      runClaimsStatement(
        Array.from({ length: count }, (_, index) => ({ runId: `r${index}`, executedBy: 'here' })),
      )!.compile(opened.db)
    // The database keeps a statement prepared by its text (see `withStatementCache`).
    expect(text([write('a', false), write('b', true)]).sql).toBe(
      text([write('c', false), write('d', false), write('e', true), write('f', true)]).sql,
    )
    expect(claims(1).sql).toBe(claims(7).sql)

    // Among thousands of runs, the planner still takes each run by its primary key: it counts
    // a JSON parameter's rows as 100, and a hash join over a scan of `runs` was its choice.
    await sql`insert into runs (id, kind, plan, inputs, status, usage, usage_by_wallet)
      select 'many-' || n, 'plan', '{}', '{}', 'done', '{}', '{}'
      from generate_series(1, 5000) as n`.execute(opened.db)
    await sql`analyze runs`.execute(opened.db)
    for (const statement of [text([write('a', false), write('b', true)]), claims(2)]) {
      const { rows } = await opened.db.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain ${statement.sql}`, [...statement.parameters]),
      )
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n')
      expect(plan).toContain('runs_pkey')
      expect(plan).not.toMatch(/Seq Scan on runs\b/)
    }
  })
})
