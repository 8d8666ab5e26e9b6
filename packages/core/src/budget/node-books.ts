import { fromUsdUnits, toUsdUnits } from '../money/usd-units'
import type { BudgetLimits } from '../schemas/budget'
import { add, type Books, toPublic, zero } from './books'
import type { Spend } from './budget-types'

export const DIMENSIONS = ['calls', 'tokens', 'costUsd'] as const
export type Dimension = (typeof DIMENSIONS)[number]

/**
 * One budget's own limits and books, in exact units: what it spent, what its reservations
 * hold, and what each wallet spent. Only this budget's: walking the chain of ancestors is the
 * budget node's job.
 *
 * @example
 * const books = new NodeBooks({ calls: 3 })
 * books.overrun({ calls: 4, tokens: 0, cost: 0n }) // 'calls'
 */
export class NodeBooks {
  readonly #limits: Readonly<BudgetLimits>
  readonly #limitCalls: number
  readonly #limitTokens: number
  /** `undefined`: no cost limit. */
  readonly #limitCost: bigint | undefined
  readonly #spent = zero()
  readonly #reserved = zero()
  // Made on first use: a busy tree makes a node per delegation, and most never need it.
  #byWallet: Map<string, Books> | undefined

  constructor(limits: Readonly<BudgetLimits>) {
    this.#limits = limits
    this.#limitCalls = limits.calls ?? Infinity
    this.#limitTokens = limits.tokens ?? Infinity
    this.#limitCost = limits.costUsd === undefined ? undefined : toUsdUnits(limits.costUsd)
  }

  limitOf(key: Dimension): number {
    return this.#limits[key] ?? Infinity
  }

  /** What this budget has spent and holds in `key`, in USD for money. */
  used(key: Dimension): number {
    if (key === 'costUsd') return fromUsdUnits(this.#spent.cost + this.#reserved.cost)
    return this.#spent[key] + this.#reserved[key]
  }

  reservedOf(key: Dimension): number {
    return key === 'costUsd' ? fromUsdUnits(this.#reserved.cost) : this.#reserved[key]
  }

  /** What is left of calls or tokens once spend and holds are counted (may be below 0). */
  left(key: 'calls' | 'tokens'): number {
    const limit = key === 'calls' ? this.#limitCalls : this.#limitTokens
    return limit - this.#spent[key] - this.#reserved[key]
  }

  /** What is left of money in exact units; `undefined`: no cost limit. */
  leftCost(): bigint | undefined {
    if (this.#limitCost === undefined) return undefined
    return this.#limitCost - this.#spent.cost - this.#reserved.cost
  }

  /** Whether a reservation holds anything here. */
  holds(): boolean {
    const reserved = this.#reserved
    return reserved.calls > 0 || reserved.tokens > 0 || reserved.cost > 0n
  }

  /** The dimension `books` would take past this budget's limit, counting what is held. */
  overrun(books: Books): Dimension | undefined {
    if (
      books.calls > 0 &&
      this.#spent.calls + this.#reserved.calls + books.calls > this.#limitCalls
    ) {
      return 'calls'
    }
    if (
      books.tokens > 0 &&
      this.#spent.tokens + this.#reserved.tokens + books.tokens > this.#limitTokens
    ) {
      return 'tokens'
    }
    if (
      books.cost > 0n &&
      this.#limitCost !== undefined &&
      this.#spent.cost + this.#reserved.cost + books.cost > this.#limitCost
    ) {
      return 'costUsd'
    }
    return undefined
  }

  /** The dimension this charge used that has now reached its limit, if any. */
  exhausted(books: Books): Dimension | undefined {
    // Only the dimensions this charge used can have just run out.
    if (books.calls > 0 && this.#spent.calls >= this.#limitCalls) return 'calls'
    if (books.tokens > 0 && this.#spent.tokens >= this.#limitTokens) return 'tokens'
    if (books.cost > 0n && this.#limitCost !== undefined && this.#spent.cost >= this.#limitCost) {
      return 'costUsd'
    }
    return undefined
  }

  /** Holds `books` for a reservation (`1`) or gives them back (`-1`). */
  hold(books: Books, sign: 1 | -1): void {
    add(this.#reserved, books, sign)
  }

  /** Records spend, attributed to `wallet` (a wallet key) when given. */
  record(books: Books, wallet: string | undefined): void {
    add(this.#spent, books, 1)
    if (wallet) {
      this.#byWallet ??= new Map()
      const entry = this.#byWallet.get(wallet)
      if (entry) add(entry, books, 1)
      else this.#byWallet.set(wallet, { ...books })
    }
  }

  spent(): Spend {
    return toPublic(this.#spent)
  }

  spentByWallet(): Record<string, Spend> {
    const result: Record<string, Spend> = {}
    for (const [wallet, books] of this.#byWallet ?? []) result[wallet] = toPublic(books)
    return result
  }
}
