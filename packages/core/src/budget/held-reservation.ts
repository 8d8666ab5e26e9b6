import { type Books, toBooks } from './books'
import type { ChargeInput, ChargeOptions, Reservation, Spend } from './budget-types'

/** What a reservation does to the books of the budget holding it. */
export type HeldReservationBooks<Holder> = {
  /** Gives back what it held, on the whole chain. */
  release(budget: Holder, books: Books): void
  /** Records what its call really used. */
  record(budget: Holder, books: Books, spend: Spend, wallet: string | undefined): void
}

/**
 * A reservation held on a budget until it is settled (what the call used is charged) or
 * released. A class rather than closures: a busy tree makes one per model call.
 *
 * @example
 * const held = new HeldReservation(node, books, spend, heldBooks)
 * held.settle({ calls: 1, tokens: 300 })
 */
export class HeldReservation<Holder> implements Reservation {
  readonly amount: Spend
  readonly #budget: Holder
  readonly #holderBooks: HeldReservationBooks<Holder>
  readonly #books: Books
  #open = true

  constructor(
    budget: Holder,
    books: Books,
    amount: Spend,
    holderBooks: HeldReservationBooks<Holder>,
  ) {
    this.#budget = budget
    this.#holderBooks = holderBooks
    this.#books = books
    this.amount = amount
  }

  release(): void {
    if (!this.#open) return
    this.#open = false
    this.#holderBooks.release(this.#budget, this.#books)
  }

  settle(actual: ChargeInput, options: ChargeOptions = {}): void {
    if (!this.#open) return
    // An invalid amount throws here and leaves the reservation held.
    const settled = toBooks(actual)
    this.release()
    // Recorded even on a cancelled budget: a call that returned was paid for, and an
    // ancestor's books must show it whatever happened to the branch that made it.
    this.#holderBooks.record(this.#budget, settled.books, settled.spend, options.wallet)
  }
}
