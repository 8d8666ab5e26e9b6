import type { Budget, ChargeEvent } from '@baton/core'
import type { RunEvent } from '@baton/mal'
import type { LedgerEntry, LedgerRepository, RunBooks } from '../db/ledger-repository'
import { addBooks } from './add-books'
import type { createSerialWriter } from './serial-writer'

export type SpendRecorder = {
  /** Follows a plan run's events, to know which step each charge belongs to. */
  observe(event: RunEvent): void
  /** Records every charge of `budget` and of the budgets below it; answers how to stop. */
  listen(budget: Budget): () => void
  /** The run's spend: what it had when this attempt began, plus every charge since. */
  books(): RunBooks
}

export type CreateSpendRecorderOptions = {
  runId: string
  /** The run's attempt (its execution number) every row of this recorder carries. */
  attempt: number
  ledger: LedgerRepository
  /** The run's writer: rows go after the events before them, and its `flush()` covers both. */
  writer: ReturnType<typeof createSerialWriter>
  /** What the run had spent when this attempt began. */
  before: RunBooks
  /**
   * Names the step a charge belongs to (its rows' `stepPath`); by default, the plan step in
   * flight (see `observe`). A swarm run names its member calls instead (`r1/lead`).
   */
  stepOf?: (charge: ChargeEvent) => string | undefined
}

// mal names a step's own budget (and a fanout branch's) after the step's path.
const stepPathPattern = /^steps\[\d+\](?:\.[A-Za-z]+\[\d+\])*/

/**
 * Writes a run's ledger rows as the spend happens, not at the step's commit, so an attempt
 * that dies mid-step is on the books: each charge becomes a row with the run, the step in
 * flight, the wallet and the attempt. Rows are batched through the run's serial writer, so
 * charging never waits for the database.
 *
 * @example
 * const recorder = createSpendRecorder({ runId, attempt, ledger, writer, before: emptyBooks })
 * const stop = recorder.listen(budget)
 * // onEvent: recorder.observe(event); before a commit: await writer.flush()
 */
export function createSpendRecorder(options: CreateSpendRecorderOptions): SpendRecorder {
  // Steps started and not finished, in the order they started.
  const inFlight = new Map<string, true>()
  let pending: LedgerEntry[] = []
  let books = options.before

  const planStepOf = (event: ChargeEvent): string | undefined => {
    const named = stepPathPattern.exec(event.budget)?.[0]
    const paths = [...inFlight.keys()]
    for (let index = paths.length - 1; index >= 0; index--) {
      const path = paths[index]!
      if (!named || path === named || path.startsWith(`${named}.`)) return path
    }
    return named
  }
  const stepOf = options.stepOf ?? planStepOf

  const drain = async () => {
    if (pending.length === 0) return
    const batch = pending
    pending = []
    await options.ledger.record(batch)
  }

  const charge = (event: ChargeEvent) => {
    const usageByWallet = event.wallet ? { [event.wallet]: event.usage } : {}
    books = addBooks(books, { usage: event.usage, usageByWallet })
    // Spend no wallet owns is in the run's usage but not in anyone's books (as before).
    if (!event.wallet) return
    const stepPath = stepOf(event)
    const first = pending.length === 0
    pending.push({
      runId: options.runId,
      wallet: event.wallet,
      usage: event.usage,
      attempt: options.attempt,
      ...(stepPath ? { stepPath } : {}),
    })
    // One write drains every row charged before it runs.
    if (first) options.writer.write(drain)
  }

  return {
    observe(event) {
      if (event.type === 'step-start') {
        inFlight.delete(event.path)
        inFlight.set(event.path, true)
      } else if (event.type === 'step-finish' || event.type === 'step-error') {
        inFlight.delete(event.path)
      }
    },
    listen: (budget) => budget.onCharge(charge),
    books: () => books,
  }
}
