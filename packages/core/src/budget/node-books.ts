import { fromUsdUnits, toUsdUnits } from '../money/usd-units'
import type { BudgetLimits } from '../schemas/budget'
import { add, type Books, toPublic, zero } from './books'
import type { Spend } from './budget-types'
import { SpendRollup } from './spend-rollup'

export const DIMENSIONS = ['calls', 'tokens', 'costUsd'] as const
export type Dimension = (typeof DIMENSIONS)[number]

// Most budgets never hold anything (only those with limits, and the root, do): they share
// these empty books instead of keeping their own (~70 bytes of every budget of a tree).
// Never written (`hold` replaces them first); not frozen, so that they have the shape of
// the books that replace them and reading either stays one fast path.
const NOTHING_HELD: Books = zero()

/**
 * One budget's own limits and books, in exact units: what it and its descendants spent (rolled
 * up from the descendants when read, see `SpendRollup`), what reservations hold on it, and
 * what each wallet spent. Holding on each budget of the chain is the budget node's job.
 *
 * @example
 * const books = new NodeBooks({ calls: 3 }, undefined)
 * books.overrun({ calls: 4, tokens: 0, cost: 0n }) // 'calls'
 */
export class NodeBooks {
  readonly #limits: Readonly<BudgetLimits>
  readonly #limitCalls: number
  readonly #limitTokens: number
  /** `undefined`: no cost limit. */
  readonly #limitCost: bigint | undefined
  /** Whether any limit is set: a budget without one never refuses, nor reads its spend to check. */
  readonly #limited: boolean
  readonly #rollup: SpendRollup
  /** What reservations hold here: the shared `NOTHING_HELD` until the first hold. */
  #reserved: Books = NOTHING_HELD

  constructor(limits: Readonly<BudgetLimits>, parent: NodeBooks | undefined) {
    this.#rollup = new SpendRollup(parent ? parent.#rollup : undefined)
    this.#limits = limits
    this.#limitCalls = limits.calls ?? Infinity
    this.#limitTokens = limits.tokens ?? Infinity
    this.#limitCost = limits.costUsd === undefined ? undefined : toUsdUnits(limits.costUsd)
    this.#limited =
      this.#limitCalls !== Infinity ||
      this.#limitTokens !== Infinity ||
      this.#limitCost !== undefined
  }

  /** Whether this budget has a limit on calls, tokens or money: one that can refuse a charge. */
  limited(): boolean {
    return this.#limited
  }

  limitOf(key: Dimension): number {
    return this.#limits[key] ?? Infinity
  }

  /** What this budget has spent and holds in `key`, in USD for money. */
  used(key: Dimension): number {
    const spent = this.#rollup.total()
    if (key === 'costUsd') return fromUsdUnits(spent.cost + this.#reserved.cost)
    return spent[key] + this.#reserved[key]
  }

  reservedOf(key: Dimension): number {
    return key === 'costUsd' ? fromUsdUnits(this.#reserved.cost) : this.#reserved[key]
  }

  /** What is left of calls or tokens once spend and holds are counted (may be below 0). */
  left(key: 'calls' | 'tokens'): number {
    const limit = key === 'calls' ? this.#limitCalls : this.#limitTokens
    // Unlimited is unlimited whatever was spent: no need to take the descendants' spend in.
    if (limit === Infinity) return Infinity
    return limit - this.#rollup.total()[key] - this.#reserved[key]
  }

  /** What is left of money in exact units; `undefined`: no cost limit. */
  leftCost(): bigint | undefined {
    if (this.#limitCost === undefined) return undefined
    return this.#limitCost - this.#rollup.total().cost - this.#reserved.cost
  }

  /** Whether a reservation holds anything here. */
  holds(): boolean {
    const reserved = this.#reserved
    return reserved.calls > 0 || reserved.tokens > 0 || reserved.cost > 0n
  }

  /** The dimension `books` would take past this budget's limit, counting what is held. */
  overrun(books: Books): Dimension | undefined {
    if (!this.#limited) return undefined
    const spent = this.#rollup.total()
    if (books.calls > 0 && spent.calls + this.#reserved.calls + books.calls > this.#limitCalls) {
      return 'calls'
    }
    if (
      books.tokens > 0 &&
      spent.tokens + this.#reserved.tokens + books.tokens > this.#limitTokens
    ) {
      return 'tokens'
    }
    if (
      books.cost > 0n &&
      this.#limitCost !== undefined &&
      spent.cost + this.#reserved.cost + books.cost > this.#limitCost
    ) {
      return 'costUsd'
    }
    return undefined
  }

  /** The dimension this charge used that has now reached its limit, if any. */
  exhausted(books: Books): Dimension | undefined {
    // Only the dimensions this charge used can have just run out.
    if (!this.#limited) return undefined
    const spent = this.#rollup.total()
    if (books.calls > 0 && spent.calls >= this.#limitCalls) return 'calls'
    if (books.tokens > 0 && spent.tokens >= this.#limitTokens) return 'tokens'
    if (books.cost > 0n && this.#limitCost !== undefined && spent.cost >= this.#limitCost) {
      return 'costUsd'
    }
    return undefined
  }

  /** Holds `books` for a reservation (`1`) or gives them back (`-1`). */
  hold(books: Books, sign: 1 | -1): void {
    if (this.#reserved === NOTHING_HELD) this.#reserved = zero()
    add(this.#reserved, books, sign)
  }

  /**
   * Records spend of this budget's own, attributed to `wallet` (a wallet key) when given; its
   * ancestors' books take it in when they are read.
   */
  record(books: Books, wallet: string | undefined): void {
    this.#rollup.record(books, wallet)
  }

  spent(): Spend {
    return toPublic(this.#rollup.total())
  }

  spentByWallet(): Record<string, Spend> {
    const result: Record<string, Spend> = {}
    for (const [wallet, books] of this.#rollup.byWallet()) result[wallet] = toPublic(books)
    return result
  }
}
