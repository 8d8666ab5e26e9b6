import { add, type Books, zero } from './books'
import { type OneOrMore, sizeOf, withMember } from './one-or-more'

/** Past this many children waiting to be rolled up, a budget takes their spend in at once. */
const MAX_WAITING = 256

/**
 * What one budget and all its descendants spent, in total and per wallet. A charge is recorded
 * on the budget that made it and rolled up into its ancestors when one of them is read, not
 * at every charge: a charge at depth 1000 costs the same as one at depth 1, and a read moves
 * each amount up one level once (amortized O(1) per charge).
 *
 * A budget with spend not yet rolled up (or with such descendants) is in its parent's set of
 * children waiting; every ancestor of a waiting budget is waiting too, up to the root, so a
 * read only visits the branches that changed. The waiting set holds its children strongly,
 * so a finished child's spend is never lost before its parent has taken it in.
 *
 * @example
 * const root = new SpendRollup(undefined)
 * const child = new SpendRollup(root)
 * child.record({ calls: 1, tokens: 5, cost: 10n }, undefined)
 * root.total().calls // 1
 */
export class SpendRollup {
  readonly #parent: SpendRollup | undefined
  /** Everything taken in so far: this budget's own charges and what descendants rolled up. */
  readonly #spent = zero()
  #byWallet: PerWallet | undefined
  /** In `#spent` already, not yet in the parent's. */
  #pending: Books | undefined
  #pendingByWallet: PerWallet | undefined
  /** Children with spend (their own or their descendants') this budget has not taken in. */
  #waiting: OneOrMore<SpendRollup>
  /** Whether this budget is in its parent's `#waiting`. */
  #queued = false

  constructor(parent: SpendRollup | undefined) {
    this.#parent = parent
  }

  /** Records a charge of this budget's own, attributed to `wallet` (a wallet key) when given. */
  record(books: Books, wallet: string | undefined): void {
    this.#takeBooks(books, wallet)
    if (this.#parent) this.#queue()
  }

  /** Everything this budget and its descendants spent (the live books: read, do not change). */
  total(): Books {
    this.#takeIn()
    return this.#spent
  }

  /** Spend per wallet key, this budget's and its descendants'. */
  byWallet(): ReadonlyMap<string, Books> {
    this.#takeIn()
    const byWallet = this.#byWallet
    if (byWallet instanceof Map) return byWallet
    return byWallet ? new Map([[byWallet.wallet, byWallet]]) : new Map()
  }

  /** Puts this budget in its parent's waiting set, and so on up to one that is there already. */
  #queue(): void {
    for (
      let node: SpendRollup = this, parent = node.#parent;
      parent && !node.#queued;
      node = parent, parent = node.#parent
    ) {
      node.#queued = true
      parent.#waiting = withMember(parent.#waiting, node)
      // A parent nobody reads (a long-lived root) would otherwise hold every child it had.
      if (sizeOf(parent.#waiting) > MAX_WAITING) parent.#takeIn()
    }
  }

  /** Takes in what waiting descendants spent, deepest first. */
  #takeIn(): void {
    const waiting = this.#waiting
    if (waiting === undefined) return
    if (waiting instanceof Set) {
      for (const child of waiting) this.#takeInChild(child)
      // Kept: a budget with many children waiting will likely have many again.
      waiting.clear()
    } else {
      this.#waiting = undefined
      this.#takeInChild(waiting)
    }
  }

  #takeInChild(child: SpendRollup): void {
    child.#takeIn()
    child.#queued = false
    if (child.#pending) this.#takeBooks(child.#pending, undefined)
    const pending = child.#pendingByWallet
    if (pending instanceof Map) {
      for (const [wallet, books] of pending) this.#takeWallet(wallet, books)
    } else if (pending) {
      this.#takeWallet(pending.wallet, pending)
    }
    child.#pending = undefined
    child.#pendingByWallet = undefined
  }

  /** Adds to what this budget spent and, below the root, to what its parent has still to take in. */
  #takeBooks(books: Books, wallet: string | undefined): void {
    add(this.#spent, books, 1)
    if (this.#parent) {
      this.#pending ??= zero()
      add(this.#pending, books, 1)
    }
    if (wallet) this.#takeWallet(wallet, books)
  }

  #takeWallet(wallet: string, books: Books): void {
    this.#byWallet = addPerWallet(this.#byWallet, wallet, books)
    if (this.#parent) this.#pendingByWallet = addPerWallet(this.#pendingByWallet, wallet, books)
  }
}

/**
 * Spend per wallet key. Most budgets are spent by one agent's wallet: its books alone (with
 * the wallet on them) until a second wallet spends, then a map. A map per budget and per
 * pending roll-up was two of them for every sub-agent's or fanout branch's budget.
 */
type PerWallet = WalletBooks | Map<string, Books>
type WalletBooks = Books & { wallet: string }

function addPerWallet(per: PerWallet | undefined, wallet: string, books: Books): PerWallet {
  if (per === undefined)
    return { calls: books.calls, tokens: books.tokens, cost: books.cost, wallet }
  if (per instanceof Map) {
    addTo(per, wallet, books)
    return per
  }
  if (per.wallet === wallet) {
    add(per, books, 1)
    return per
  }
  const map = new Map<string, Books>([
    [per.wallet, { calls: per.calls, tokens: per.tokens, cost: per.cost }],
  ])
  addTo(map, wallet, books)
  return map
}

function addTo(byWallet: Map<string, Books>, wallet: string, books: Books): void {
  const entry = byWallet.get(wallet)
  if (entry) add(entry, books, 1)
  else byWallet.set(wallet, { calls: books.calls, tokens: books.tokens, cost: books.cost })
}
