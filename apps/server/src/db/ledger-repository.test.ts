import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends } from '../__fixtures__/backends'
import { openTestRepositories } from '../__fixtures__/test-database'
import type { OpenedDatabase } from './open-database'
import type { Repositories } from './repositories'

const analyst = '0x1111111111111111111111111111111111111111'
const reviewer = '0x2222222222222222222222222222222222222222'
const one = { calls: 1, tokens: 10, costUsd: 0.001 }

describe.each(backends)('createLedgerRepository on %s', (backend) => {
  let opened: OpenedDatabase
  let repositories: Repositories
  beforeAll(async () => {
    ;({ opened, repositories } = await openTestRepositories(backend))
  })
  afterAll(() => opened.db.destroy())

  const newRun = async () => {
    const id = randomUUID()
    await repositories.runs.create({ id, kind: 'plan', plan: { steps: [] }, inputs: {} })
    return id
  }

  it('counts a run’s attempts: 1 at its first claim, one more at each claim after', async () => {
    const id = await newRun()
    expect((await repositories.runs.find(id))?.attempt).toBe(0)
    expect(await repositories.runs.claim(id, 'a')).toBe(1)
    expect(await repositories.runs.claim(id, 'b')).toBe(2)
    expect(await repositories.runs.find(id)).toMatchObject({ attempt: 2, executedBy: 'b' })
  })

  it('keeps the step and the attempt of each row, and lists one run’s rows in order', async () => {
    const id = await newRun()
    const other = await newRun()
    await repositories.ledger.record([
      { runId: id, wallet: analyst, usage: one, stepPath: 'steps[0]', attempt: 1 },
      { runId: id, wallet: reviewer, usage: one, stepPath: 'steps[1].then[0]', attempt: 1 },
      { runId: other, wallet: analyst, usage: one, stepPath: 'steps[0]', attempt: 1 },
    ])
    await repositories.ledger.record([
      { runId: id, wallet: reviewer, usage: one, stepPath: 'steps[1].then[0]', attempt: 2 },
    ])
    const { entries, total } = await repositories.ledger.entries({
      runId: id,
      limit: 10,
      offset: 0,
    })
    expect(total).toBe(3)
    expect(entries.map(({ wallet, stepPath, attempt }) => ({ wallet, stepPath, attempt }))).toEqual(
      [
        { wallet: analyst, stepPath: 'steps[0]', attempt: 1 },
        { wallet: reviewer, stepPath: 'steps[1].then[0]', attempt: 1 },
        { wallet: reviewer, stepPath: 'steps[1].then[0]', attempt: 2 },
      ],
    )
    expect(entries[0]).toMatchObject({ runId: id, ...one })
    const byWallet = await repositories.ledger.entries({ wallet: reviewer, limit: 10, offset: 0 })
    expect(byWallet.entries.every((entry) => entry.wallet === reviewer)).toBe(true)
  })

  it('sums a run’s books over every attempt, per wallet', async () => {
    const id = await newRun()
    await repositories.ledger.record([
      { runId: id, wallet: analyst, usage: one, stepPath: 'steps[0]', attempt: 1 },
      { runId: id, wallet: reviewer, usage: one, stepPath: 'steps[1]', attempt: 1 },
      { runId: id, wallet: reviewer, usage: one, stepPath: 'steps[1]', attempt: 2 },
    ])
    expect(await repositories.ledger.booksOfRun(id)).toEqual({
      usage: { calls: 3, tokens: 30, costUsd: 0.003 },
      usageByWallet: {
        [analyst]: one,
        [reviewer]: { calls: 2, tokens: 20, costUsd: 0.002 },
      },
    })
    expect(await repositories.ledger.booksOfRun(randomUUID())).toEqual({
      usage: { calls: 0, tokens: 0, costUsd: 0 },
      usageByWallet: {},
    })
  })
})
