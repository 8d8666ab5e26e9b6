import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends } from '../__fixtures__/backends'
import { openTestRepositories } from '../__fixtures__/test-database'
import type { OpenedDatabase } from '../db/open-database'
import type { Repositories } from '../db/repositories'

const entry = (text: string, promptHash = '0xabc') => ({
  promptHash,
  text,
  usage: { calls: 1, tokens: 12, costUsd: 0.000012 },
})

describe.each(backends)('createSwarmJournalRepository on %s', (backend) => {
  let opened: OpenedDatabase
  let repositories: Repositories
  beforeAll(async () => {
    ;({ opened, repositories } = await openTestRepositories(backend))
  })
  afterAll(() => opened.db.destroy())

  const newSwarmRun = async () => {
    const id = randomUUID()
    await repositories.runs.create({ id, kind: 'swarm', plan: {}, inputs: { task: 'x' } })
    return id
  }

  it('keeps a run’s member calls with their prompt hash, answer, usage and attempt, in the order recorded', async () => {
    const id = await newSwarmRun()
    const other = await newSwarmRun()
    await repositories.swarmJournal.record({
      runId: id,
      key: 'r1/lead',
      entry: entry('plan'),
      attempt: 1,
    })
    await repositories.swarmJournal.record({
      runId: other,
      key: 'r1/lead',
      entry: entry('no'),
      attempt: 1,
    })
    await repositories.swarmJournal.record({
      runId: id,
      key: 'r1/ana',
      entry: entry('work'),
      attempt: 2,
    })
    const calls = await repositories.swarmJournal.callsOfRun(id)
    expect(calls.map(({ at: _at, ...call }) => call)).toEqual([
      { key: 'r1/lead', attempt: 1, ...entry('plan') },
      { key: 'r1/ana', attempt: 2, ...entry('work') },
    ])
  })

  it('replaces a call recorded again under its key (its prompt had changed)', async () => {
    const id = await newSwarmRun()
    await repositories.swarmJournal.record({
      runId: id,
      key: 'r1/lead',
      entry: entry('old'),
      attempt: 1,
    })
    await repositories.swarmJournal.record({
      runId: id,
      key: 'r1/lead',
      entry: entry('new', '0xdef'),
      attempt: 2,
    })
    const calls = await repositories.swarmJournal.callsOfRun(id)
    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({ key: 'r1/lead', attempt: 2, ...entry('new', '0xdef') })
  })

  it('records only for the process that holds the running run: another gets RUN_TAKEN_OVER and writes nothing', async () => {
    const id = await newSwarmRun()
    const attempt = await repositories.runs.claim(id, 'a')
    await repositories.swarmJournal.record({
      runId: id,
      key: 'r1/lead',
      entry: entry('plan'),
      attempt,
      executedBy: 'a',
    })
    await repositories.runs.claim(id, 'b')
    await expect(
      repositories.swarmJournal.record({
        runId: id,
        key: 'r1/ana',
        entry: entry('late'),
        attempt,
        executedBy: 'a',
      }),
    ).rejects.toMatchObject({ code: 'RUN_TAKEN_OVER' })
    expect((await repositories.swarmJournal.callsOfRun(id)).map((call) => call.key)).toEqual([
      'r1/lead',
    ])
  })
})
