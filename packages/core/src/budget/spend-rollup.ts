import { add, type Books, zero } from './books'

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
  #byWallet: Map<string, Books> | undefined
  /** In `#spent` already, not yet in the parent's. */
  #pending: Books | undefined
  #pendingByWallet: Map<string, Books> | undefined
  /** Children with spend (their own or their descendants') this budget has not taken in. */
  #waiting: Set<SpendRollup> | undefined
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
    return this.#byWallet ?? new Map()
  }

  /** Puts this budget in its parent's waiting set, and so on up to one that is there already. */
  #queue(): void {
    for (
      let node: SpendRollup = this, parent = node.#parent;
      parent && !node.#queued;
      node = parent, parent = node.#parent
    ) {
      node.#queued = true
      parent.#waiting ??= new Set()
      const waiting = parent.#waiting
      waiting.add(node)
      // A parent nobody reads (a long-lived root) would otherwise hold every child it had.
      if (waiting.size > MAX_WAITING) parent.#takeIn()
    }
  }

  /** Takes in what waiting descendants spent, deepest first. */
  #takeIn(): void {
    const waiting = this.#waiting
    if (!waiting || waiting.size === 0) return
    for (const child of waiting) {
      child.#takeIn()
      child.#queued = false
      if (child.#pending) this.#takeBooks(child.#pending, undefined)
      for (const [wallet, books] of child.#pendingByWallet ?? []) this.#takeWallet(wallet, books)
      child.#pending = undefined
      child.#pendingByWallet = undefined
    }
    waiting.clear()
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
    this.#byWallet ??= new Map()
    addTo(this.#byWallet, wallet, books)
    if (this.#parent) {
      this.#pendingByWallet ??= new Map()
      addTo(this.#pendingByWallet, wallet, books)
    }
  }
}

function addTo(byWallet: Map<string, Books>, wallet: string, books: Books): void {
  const entry = byWallet.get(wallet)
  if (entry) add(entry, books, 1)
  else byWallet.set(wallet, { ...books })
}
