import type { BudgetInput, BudgetLimits } from '../schemas/budget'

/** Spend in every dimension a budget counts. */
export type Spend = { calls: number; tokens: number; costUsd: number }
/** What is left; `Infinity` where there is no limit. */
export type Remaining = Spend & { wallMs: number }
export type ChargeInput = Partial<Spend> & { inputTokens?: number; outputTokens?: number }

export type ChargeOptions = {
  /** The wallet of the agent that made the call; spend is attributed to it in every ancestor. */
  wallet?: string
}

/** Usage held back for a call whose real cost is known only after it returns. */
export interface Reservation {
  readonly amount: Spend
  /**
   * Records the real usage (which replaces the reserved amount). It is recorded as it is, even
   * past the estimate, because it was spent; reaching a limit then aborts that budget. It is
   * recorded on a cancelled budget too (the call returned, so it was paid for). Settling or
   * releasing twice does nothing.
   */
  settle(actual: ChargeInput, options?: ChargeOptions): void
  /** Gives the reserved amount back without charging anything. */
  release(): void
}

export type ChargeEvent = { budget: string; usage: Spend; wallet?: string }

export interface Budget {
  readonly name: string
  readonly limits: Readonly<BudgetLimits>
  readonly parent: Budget | undefined
  /** Aborted on exhaustion, on the wall deadline, on `cancel`, or when an ancestor aborts. */
  readonly signal: AbortSignal
  readonly aborted: boolean
  /**
   * A budget capped by what this one has left (default: all of it). Asking for more throws, and
   * so does a `name` a sibling already has (see `ChildOptions`).
   */
  child(limits?: BudgetInput, options?: ChildOptions): Budget
  /** Applies `usage` to this budget and every ancestor at once, or to none of them. */
  charge(usage: ChargeInput, options?: ChargeOptions): void
  /** Whether `usage` could be charged now. */
  canAfford(usage: ChargeInput): boolean
  /** Holds `estimate` against the whole chain until settled or released. */
  reserve(estimate: ChargeInput): Reservation
  /**
   * Resolves the next time a reservation that holds back part of what this budget has left
   * (its own, an ancestor's, or any of their descendants') is settled or released, so a
   * call that does not fit next to calls in flight can wait for them instead of failing.
   * `undefined` when no reservation is held on the chain: waiting would free nothing.
   */
  nextRelease(): Promise<void> | undefined
  remaining(): Remaining
  spent(): Spend & { wallMs: number }
  /** Spend attributed per wallet (only charges that named one). */
  spentByWallet(): Record<string, Spend>
  cancel(reason?: string): void
  throwIfAborted(): void
  /**
   * Called after every charge recorded on this budget (including those of descendants).
   * Listeners run once the charge is recorded on the whole chain; if one throws, the others
   * still run and the charge stands, then the first error is rethrown to the charger.
   */
  onCharge(listener: (event: ChargeEvent) => void): () => void
}

export type ChildOptions = {
  /**
   * The child's name, unique among its siblings (default: the parent's name and the child's
   * number, `run/3`). A name any child of the same parent was given before (explicit or
   * automatic, whether that sibling still runs or not) is a `ValidationError`, unless
   * `ifTaken` says to number it.
   */
  name?: string
  /**
   * What to do when a sibling has `name` already: `'refuse'` (the default) throws; `'number'`
   * gives the child `name#2`, `name#3`, ... (the first such name no sibling has), for a caller
   * that names a child after where it is made and may make it there more than once (a loop's
   * iterations, two tasks on one budget).
   */
  ifTaken?: 'refuse' | 'number'
}

export type CreateBudgetOptions = {
  name?: string
  /** Clock in ms (defaults to `Date.now`); drives the wall deadline and `spent().wallMs`. */
  now?: () => number
}
