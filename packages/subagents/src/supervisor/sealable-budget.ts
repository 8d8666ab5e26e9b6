import {
  type Budget,
  BudgetCancelledError,
  type ChargeInput,
  type ChargeOptions,
  type Reservation,
} from '@baton/core'

/** What every view carved from one sealable budget shares: sealing it seals them all. */
type SealState = { sealed: boolean; readonly onRefused: (usage: ChargeInput) => void }

/**
 * Wraps a sub-agent's budget so that, once its cancel has returned (`sealBudget`), nothing
 * more can be recorded against it or anything carved from it, whatever its runner does. A
 * cancelled budget of `@baton/core` still records the settle of a call that was in flight (it
 * was paid for); once sealed, such a late settle is released instead and reported to
 * `onRefused`, so it appears in the events, not on the books.
 *
 * @example
 * const budget = createSealableBudget(parent.child({ calls: 4 }), (usage) => log(usage))
 * sealBudget(budget) // budget.reserve(...).settle(...) now records nothing and calls log
 */
export function createSealableBudget(
  inner: Budget,
  onRefused: (usage: ChargeInput) => void,
): Budget {
  // One view deep, however deep the tree: a budget carved from another sub-agent's view is
  // unwrapped first. Each sub-agent is sealed by its own cancel (an ancestor's cancel reaches
  // every open descendant), so it needs no check of its ancestors' seals, and a charge at
  // depth 1000 goes through one view, not a thousand.
  return new SealedBudgetView(SealedBudgetView.unwrap(inner), { sealed: false, onRefused })
}

/**
 * From now on nothing is recorded against `budget` (made by `createSealableBudget`) or
 * anything carved from it: a charge or a settle is refused and reported instead. A function,
 * not a method of the budget, so that a runner handed the budget cannot seal it.
 */
export function sealBudget(budget: Budget): void {
  SealedBudgetView.seal(budget)
}

class SealedBudgetView implements Budget {
  readonly #inner: Budget
  readonly #state: SealState

  constructor(inner: Budget, state: SealState) {
    this.#inner = inner
    this.#state = state
  }

  static unwrap(budget: Budget): Budget {
    return budget instanceof SealedBudgetView ? budget.#inner : budget
  }

  static seal(budget: Budget): void {
    if (budget instanceof SealedBudgetView) budget.#state.sealed = true
  }

  get name() {
    return this.#inner.name
  }
  get limits() {
    return this.#inner.limits
  }
  get parent() {
    return this.#inner.parent
  }
  get signal() {
    return this.#inner.signal
  }
  get aborted() {
    return this.#inner.aborted
  }

  child(...args: Parameters<Budget['child']>): Budget {
    // Whatever is carved from it is sealed with it.
    return new SealedBudgetView(this.#inner.child(...args), this.#state)
  }

  charge(usage: ChargeInput, options?: ChargeOptions): void {
    if (this.#state.sealed) this.#refuse(usage)
    this.#inner.charge(usage, options)
  }

  canAfford(usage: ChargeInput): boolean {
    return !this.#state.sealed && this.#inner.canAfford(usage)
  }

  reserve(estimate: ChargeInput): Reservation {
    if (this.#state.sealed) this.#refuse(estimate)
    return new SealedReservation(this.#inner.reserve(estimate), this.#state)
  }

  nextRelease() {
    return this.#inner.nextRelease()
  }
  remaining() {
    return this.#inner.remaining()
  }
  spent() {
    return this.#inner.spent()
  }
  spentByWallet() {
    return this.#inner.spentByWallet()
  }
  cancel(reason?: string): void {
    this.#inner.cancel(reason)
  }
  throwIfAborted(): void {
    this.#inner.throwIfAborted()
  }
  onCharge(...args: Parameters<Budget['onCharge']>) {
    return this.#inner.onCharge(...args)
  }

  #refuse(usage: ChargeInput): never {
    this.#state.onRefused(usage)
    throw this.#inner.signal.reason ?? new BudgetCancelledError(this.#inner.name, 'it was sealed')
  }
}

/** A reservation of a sealable budget: its settle is refused once the budget is sealed. */
class SealedReservation implements Reservation {
  readonly #inner: Reservation
  readonly #state: SealState

  constructor(inner: Reservation, state: SealState) {
    this.#inner = inner
    this.#state = state
  }

  get amount() {
    return this.#inner.amount
  }

  settle(...[actual, options]: Parameters<Reservation['settle']>) {
    if (!this.#state.sealed) return this.#inner.settle(actual, options)
    this.#inner.release()
    this.#state.onRefused(actual)
  }

  release() {
    this.#inner.release()
  }
}
