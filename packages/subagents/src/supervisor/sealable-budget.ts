import {
  type Budget,
  BudgetCancelledError,
  type ChargeInput,
  type ChargeOptions,
  type Reservation,
} from '@baton/core'

/** A budget that refuses everything, late settles included, once its owner seals it. */
export type SealableBudget = {
  budget: Budget
  /** From now on nothing is recorded: a charge or a settle is refused and reported instead. */
  seal(): void
  readonly sealed: boolean
}

type SealState = { sealed: boolean; onRefused: (usage: ChargeInput) => void }

/**
 * Wraps a sub-agent's budget so that, once its cancel has returned, nothing more can be
 * recorded against it or anything carved from it, whatever its runner does. A cancelled
 * budget of `@baton/core` still records the settle of a call that was in flight (it was
 * paid for); after `seal()` such a late settle is released instead and reported to
 * `onRefused`, so it appears in the events, not on the books.
 *
 * @example
 * const { budget, seal } = createSealableBudget(parent.child({ calls: 4 }), (usage) => log(usage))
 * seal() // budget.reserve(...).settle(...) now records nothing and calls log
 */
export function createSealableBudget(
  inner: Budget,
  onRefused: (usage: ChargeInput) => void,
): SealableBudget {
  const state: SealState = { sealed: false, onRefused }
  return {
    // One view deep, however deep the tree: a budget carved from another sub-agent's view is
    // unwrapped first. Each sub-agent is sealed by its own cancel (an ancestor's cancel
    // reaches every open descendant), so it needs no check of its ancestors' seals, and a
    // charge at depth 1000 goes through one view, not a thousand.
    budget: new SealedBudgetView(SealedBudgetView.unwrap(inner), state),
    seal: () => {
      state.sealed = true
    },
    get sealed() {
      return state.sealed
    },
  }
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
    const reservation = this.#inner.reserve(estimate)
    return {
      amount: reservation.amount,
      settle: (actual, options) => {
        if (!this.#state.sealed) return reservation.settle(actual, options)
        reservation.release()
        this.#state.onRefused(actual)
      },
      release: () => reservation.release(),
    }
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
