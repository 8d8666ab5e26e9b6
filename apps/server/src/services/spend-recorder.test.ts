import { createBudget } from '@baton/core'
import type { RunEvent } from '@baton/mal'
import { describe, expect, it } from 'vitest'
import type { LedgerEntry, LedgerRepository } from '../db/ledger-repository'
import { emptyBooks } from './add-books'
import { createSerialWriter } from './serial-writer'
import { createSpendRecorder } from './spend-recorder'

const analyst = '0x1111111111111111111111111111111111111111'
const reviewer = '0x2222222222222222222222222222222222222222'

function setup() {
  const rows: LedgerEntry[][] = []
  const ledger = {
    record: async (entries: LedgerEntry[]) => {
      rows.push(entries)
    },
  } as unknown as LedgerRepository
  const writer = createSerialWriter()
  const recorder = createSpendRecorder({
    runId: 'run-1',
    attempt: 2,
    ledger,
    writer,
    before: emptyBooks,
  })
  const step = (type: 'step-start' | 'step-finish', path: string) =>
    recorder.observe({ type, path } as unknown as RunEvent)
  return { rows, writer, recorder, step }
}

describe('createSpendRecorder', () => {
  it('writes each charge with the run, the step in flight, the wallet and the attempt, by the time the writer is flushed', async () => {
    const { rows, writer, recorder, step } = setup()
    const budget = createBudget({}, { name: 'plan:demo' })
    recorder.listen(budget)
    step('step-start', 'steps[0]')
    budget.charge({ calls: 1, tokens: 5 }, { wallet: analyst })
    step('step-finish', 'steps[0]')
    step('step-start', 'steps[1]')
    step('step-start', 'steps[1].then[0]')
    budget.charge({ calls: 1, tokens: 7 }, { wallet: reviewer })
    await writer.flush()
    expect(rows.flat()).toEqual([
      {
        runId: 'run-1',
        wallet: analyst,
        usage: { calls: 1, tokens: 5, costUsd: 0 },
        attempt: 2,
        stepPath: 'steps[0]',
      },
      {
        runId: 'run-1',
        wallet: reviewer,
        usage: { calls: 1, tokens: 7, costUsd: 0 },
        attempt: 2,
        stepPath: 'steps[1].then[0]',
      },
    ])
    expect(recorder.books().usage).toEqual({ calls: 2, tokens: 12, costUsd: 0 })
  })

  it('batches the charges made before the writer runs into one write', async () => {
    const { rows, writer, recorder } = setup()
    const budget = createBudget()
    recorder.listen(budget)
    for (let index = 0; index < 5; index++) budget.charge({ calls: 1 }, { wallet: analyst })
    await writer.flush()
    expect(rows.map((batch) => batch.length)).toEqual([5])
  })

  it('attributes a charge on a step’s own budget to that step even while a sibling branch runs', async () => {
    const { rows, writer, recorder, step } = setup()
    const root = createBudget({}, { name: 'plan' })
    recorder.listen(root)
    step('step-start', 'steps[0]')
    step('step-start', 'steps[0].branches[0].steps[0]')
    step('step-start', 'steps[0].branches[1].steps[0]')
    const first = root.child({}, { name: 'steps[0].branches[0]' })
    first.child().charge({ calls: 1 }, { wallet: analyst })
    await writer.flush()
    expect(rows.flat()[0]?.stepPath).toBe('steps[0].branches[0].steps[0]')
  })

  it('stops recording when its listener is removed', async () => {
    const { rows, writer, recorder } = setup()
    const budget = createBudget()
    const stop = recorder.listen(budget)
    stop()
    budget.charge({ calls: 1 }, { wallet: analyst })
    await writer.flush()
    expect(rows).toEqual([])
  })

  it('names each charge’s step as it is told to (a swarm’s member calls), and counts what the run had before', async () => {
    const rows: LedgerEntry[][] = []
    const ledger = {
      record: async (entries: LedgerEntry[]) => {
        rows.push(entries)
      },
    } as unknown as LedgerRepository
    const writer = createSerialWriter()
    const earlier = { calls: 2, tokens: 10, costUsd: 0 }
    const recorder = createSpendRecorder({
      runId: 'run-1',
      attempt: 2,
      ledger,
      writer,
      before: { usage: earlier, usageByWallet: { [analyst]: earlier } },
      stepOf: (charge) => (charge.budget.startsWith('run-1/') ? charge.budget.slice(6) : undefined),
    })
    const budget = createBudget()
    recorder.listen(budget)
    budget.child({}, { name: 'run-1/r1/lead' }).charge({ calls: 1 }, { wallet: analyst })
    budget.child({}, { name: 'run-1/r1/lead#2' }).charge({ calls: 1 }, { wallet: analyst })
    budget.child({}, { name: 'run-1/r2/critic' }).charge({ calls: 1 }, { wallet: reviewer })
    budget.charge({ calls: 1 }, { wallet: reviewer })
    await writer.flush()
    expect(rows.flat().map((row) => [row.stepPath, row.attempt, row.wallet])).toEqual([
      ['r1/lead', 2, analyst],
      ['r1/lead#2', 2, analyst],
      ['r2/critic', 2, reviewer],
      [undefined, 2, reviewer],
    ])
    expect(recorder.books().usage.calls).toBe(6)
    expect(recorder.books().usageByWallet[analyst]?.calls).toBe(4)
  })
})
