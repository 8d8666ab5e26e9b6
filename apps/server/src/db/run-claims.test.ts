import { randomUUID } from 'node:crypto'
import type { Kysely, KyselyPlugin } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends } from '../__fixtures__/backends'
import { openTestDatabase } from '../__fixtures__/test-database'
import { RunTakenOverError } from '../scale/run-taken-over-error'
import { createDatabaseConclave } from './conclave-repository'
import type { Database } from './database'
import { createGroupCommit } from './group-commit'
import type { OpenedDatabase } from './open-database'
import { createRunsRepository } from './runs-repository'

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

describe.each(backends)('runs claimed through the group commit on %s', (backend) => {
  let opened: OpenedDatabase
  beforeAll(async () => {
    opened = await openTestDatabase(backend)
  })
  afterAll(() => opened.db.destroy())

  it('claims runs, writes other runs, refuses a run taken over and expires a conclave, in one statement', async () => {
    const { db, counter } = countStatements(opened.db)
    const writer = createGroupCommit(db)
    const runs = createRunsRepository(db, writer)
    const conclave = createDatabaseConclave(db, {}, writer)
    const [queued, takenOver, finished, writing, lost] = Array.from({ length: 5 }, () =>
      randomUUID(),
    ) as [string, string, string, string, string]
    for (const id of [queued, takenOver, finished, writing, lost])
      await runs.create({ id, kind: 'plan', plan: { steps: [] }, inputs: { id } })
    // A run another process was executing (its lease ran out), one that ended, one this
    // process executes, and one it executed until another process took it over.
    expect((await runs.claimToExecute(takenOver, 'there'))?.attempt).toBe(1)
    expect(await runs.changeStatus(finished, { from: 'queued', to: 'done' })).toBe(true)
    expect((await runs.claimToExecute(writing, 'here'))?.attempt).toBe(1)
    expect((await runs.claimToExecute(lost, 'here'))?.attempt).toBe(1)
    expect((await runs.claimToExecute(lost, 'there'))?.attempt).toBe(2)
    await conclave.write(writing, 'draft', 'v1', { writtenBy: 'w' })

    const before = counter.statements
    const [claims, written, refused, expired] = await Promise.allSettled([
      Promise.all([
        runs.claimToExecute(queued, 'here'),
        runs.claimToExecute(takenOver, 'here'),
        runs.claimToExecute(finished, 'here'),
        runs.claimToExecute(randomUUID(), 'here'),
      ]),
      runs.appendEvents(writing, [{ type: 'run-start', sequence: 0 }], { executedBy: 'here' }),
      runs.appendEvents(lost, [{ type: 'run-start', sequence: 0 }], { executedBy: 'here' }),
      conclave.expire(writing, 0),
    ])
    // One turn: the claims, the events, the refused events and the expiry are one statement.
    expect(counter.statements - before).toBe(1)
    expect(written.status).toBe('fulfilled')
    expect(expired.status).toBe('fulfilled')
    expect(refused.status).toBe('rejected')
    expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(RunTakenOverError)
    const [fromQueue, fromThere, ended, missing] = (
      claims as PromiseFulfilledResult<Awaited<ReturnType<typeof runs.claimToExecute>>[]>
    ).value
    // Each answers the run as it was before its claim, and the attempt the claim made.
    expect(fromQueue).toMatchObject({
      attempt: 1,
      run: { id: queued, status: 'queued', inputs: { id: queued }, executedBy: null },
    })
    expect(typeof fromQueue?.run.createdAt).toBe('string')
    expect(fromThere).toMatchObject({
      attempt: 2,
      run: { id: takenOver, status: 'running', executedBy: 'there' },
    })
    expect(ended).toMatchObject({ attempt: 0, run: { id: finished, status: 'done' } })
    expect(missing).toBeUndefined()

    expect(await runs.find(queued)).toMatchObject({ status: 'running', executedBy: 'here' })
    expect(await runs.find(takenOver)).toMatchObject({ executedBy: 'here', attempt: 2 })
    expect(await runs.find(finished)).toMatchObject({ status: 'done', attempt: 0 })
    expect((await runs.events(writing)).map((event) => event.type)).toEqual(['run-start'])
    expect(await runs.events(lost)).toEqual([])
    expect(await conclave.list(writing)).toEqual([])
  })

  it('claims one run twice in a turn one claim after the other', async () => {
    const writer = createGroupCommit(opened.db)
    const runs = createRunsRepository(opened.db, writer)
    const id = randomUUID()
    await runs.create({ id, kind: 'plan', plan: { steps: [] }, inputs: {} })
    const [first, second] = await Promise.all([
      runs.claimToExecute(id, 'here'),
      runs.claimToExecute(id, 'there'),
    ])
    expect(first).toMatchObject({ attempt: 1, run: { status: 'queued' } })
    expect(second).toMatchObject({ attempt: 2, run: { status: 'running', executedBy: 'here' } })
    expect(await runs.find(id)).toMatchObject({ executedBy: 'there', attempt: 2 })
  })
})
