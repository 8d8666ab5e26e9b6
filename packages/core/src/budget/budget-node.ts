import { fromUsdUnits } from '../money/usd-units'
import type { BudgetInput, BudgetLimits } from '../schemas/budget'
import { type Books, toBooks, walletKey } from './books'
import { BudgetCancelledError, BudgetExceededError } from './budget-errors'
import type {
  Budget,
  ChargeEvent,
  ChargeInput,
  ChargeOptions,
  ChildOptions,
  Remaining,
  Reservation,
  Spend,
} from './budget-types'
import { childLimits } from './child-limits'
import { ChildNames } from './child-names'
import { DeadlineTimer } from './deadline-timer'
import { ownSignal } from './follows-signal'
import { HeldReservation, type HeldReservationBooks } from './held-reservation'
import { type Dimension, NodeBooks } from './node-books'
import { normalizeLimits } from './normalize-limits'
import { membersOf, type OneOrMore, withMember } from './one-or-more'
import { type ReleaseWaiters, waitForRelease, wakeReleaseWaiters } from './release-waiters'

// Finished children are collected (they are reached through weak references); the set's dead
// references are swept out once it has doubled since its last sweep, O(1) per child amortised.
// A FinalizationRegistry did that per child, and its register was 11% of a fan-out's profile.
const FIRST_SWEEP = 64

// The limits of a budget that has none of its own (most children): one object for all.
const NO_LIMITS: Readonly<BudgetLimits> = Object.freeze({})

function hasLimit(limits: BudgetLimits): boolean {
  for (const _key in limits) return true
  return false
}

export class BudgetNode implements Budget {
  readonly name: string
  readonly limits: Readonly<BudgetLimits>
  readonly parent: BudgetNode | undefined
  readonly #now: () => number
  readonly #startedAt: number
  readonly #deadline: number
  readonly #deadlineInChain: boolean
  /** The earliest deadline of this budget and its ancestors, fixed when it is made. */
  readonly #chainDeadline: number
  /** The nearest ancestor with a deadline of its own: only those can expire before this one. */
  readonly #deadlineAbove: BudgetNode | undefined
  /**
   * The nearest ancestor that can refuse anything: one with a limit on calls, tokens or money,
   * or the root (whose books hold every reservation of the tree). Checks and holds hop from one
   * such budget to the next, so a chain of budgets that ask for nothing costs nothing to
   * climb: a charge at depth 1000 under an unlimited root checks one budget, not a thousand.
   */
  readonly #limitedAbove: BudgetNode | undefined
  /** This budget when it is one that can refuse (see `#limitedAbove`), else that ancestor. */
  readonly #firstLimited: BudgetNode
  readonly #root: BudgetNode
  // One controller per node, linked by the tree itself: aborting a node aborts its children
  // directly, with no AbortSignal.any per node (whose order of events differs between runtimes).
  // Made when the signal is first read: on Node.js 20 a signal and its abort event cost more
  // than the rest of the node, and most budgets of a fan-out are never listened to.
  #controller: AbortController | undefined
  /** Why this budget was aborted; set once, whether or not its signal was made yet. */
  #reason: Error | undefined
  readonly #books: NodeBooks
  // Made on first use: a busy tree makes a node per delegation, and most never need them.
  #listeners: Set<(event: ChargeEvent) => void> | undefined
  /** On the root: how many budgets of the tree have listeners, so a charge with none to tell walks nothing. */
  #listeningBudgets = 0
  /**
   * Kept on the root only: every chain ends there, and every reservation is held there, so a
   * waiter registered on the root is woken by any release that would have woken it anywhere
   * on its chain.
   */
  #releaseWaiters: ReleaseWaiters | undefined
  #timer: DeadlineTimer | undefined
  #children: OneOrMore<WeakRef<BudgetNode>>
  /** The number of children's references at which the dead ones are next swept out. */
  #sweepAt = FIRST_SWEEP
  /** The names its children took. */
  #childNames: ChildNames | undefined

  constructor(
    limits: BudgetLimits,
    name: string,
    parent: BudgetNode | undefined,
    now: () => number,
  ) {
    this.name = name
    this.limits = hasLimit(limits) ? Object.freeze({ ...limits }) : NO_LIMITS
    this.parent = parent
    this.#now = now
    this.#startedAt = now()
    this.#books = new NodeBooks(this.limits, parent ? parent.#books : undefined)
    this.#deadline = limits.maxWallMs === undefined ? Infinity : this.#startedAt + limits.maxWallMs
    this.#deadlineInChain =
      Number.isFinite(this.#deadline) || (parent ? parent.#deadlineInChain : false)
    const above = parent ? parent.#chainDeadline : Infinity
    this.#chainDeadline = Math.min(this.#deadline, above)
    this.#deadlineAbove =
      parent && Number.isFinite(parent.#deadline)
        ? parent
        : parent
          ? parent.#deadlineAbove
          : undefined
    this.#root = parent ? parent.#root : this
    this.#limitedAbove = parent ? parent.#firstLimited : undefined
    this.#firstLimited = !parent || this.#books.limited() ? this : (this.#limitedAbove ?? this)
    // A deadline no earlier than an ancestor's is reached by the ancestor's timer.
    if (this.#deadline < above) {
      this.#timer = new DeadlineTimer({
        deadline: this.#deadline,
        now,
        onDue: () => this.#checkDeadline(),
        isDone: () => this.#reason !== undefined,
      })
    }
  }

  /** Aborted on exhaustion, on the wall deadline, on `cancel`, or when an ancestor aborts. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = new AbortController()
      if (this.#reason) controller.abort(this.#reason)
      ownSignal(this, controller.signal)
      this.#controller = controller
    }
    return this.#controller.signal
  }

  get aborted(): boolean {
    this.#checkDeadline()
    return this.#reason !== undefined
  }

  child(limits?: BudgetInput, options: ChildOptions = {}): Budget {
    this.throwIfAborted()
    const capped = childLimits(normalizeLimits(limits), this.remaining(), (dimension, requested) =>
      this.#refuseChild(dimension, requested),
    )
    // Checked before anything changes: a refused name leaves the parent as it was.
    this.#childNames ??= new ChildNames(this.name)
    const explicit = options.name === undefined ? undefined : this.#childNames.explicit(options)
    const child = new BudgetNode(capped, this.#childNames.take(explicit), this, this.#now)
    const children = withMember(this.#children, new WeakRef(child))
    this.#children = children
    if (children instanceof Set && children.size >= this.#sweepAt) {
      for (const ref of children) if (ref.deref() === undefined) children.delete(ref)
      this.#sweepAt = Math.max(FIRST_SWEEP, children.size * 2)
    }
    return child
  }

  charge(usage: ChargeInput, options: ChargeOptions = {}): void {
    const { books, spend } = toBooks(usage)
    this.throwIfAborted()
    const error = this.#refusal(books, spend, 'charge')
    if (error) {
      // The run that charged spent what it cannot pay for: it cannot go on, though siblings
      // elsewhere in the tree may.
      this.#abort(error)
      throw error
    }
    this.#apply(books, spend, options.wallet)
  }

  canAfford(usage: ChargeInput): boolean {
    this.#checkDeadline()
    if (this.#reason) return false
    const { books, spend } = toBooks(usage)
    // Asking is not trying: unlike a refused charge, a "no" here aborts nothing.
    return this.#refusal(books, spend, 'charge') === undefined
  }

  reserve(estimate: ChargeInput): Reservation {
    const { books, spend } = toBooks(estimate)
    this.throwIfAborted()
    // A reservation that does not fit is "not now", not "used up": it refuses this one call
    // and aborts nothing, so calls in flight on the same budget go on.
    const refusal = this.#refusal(books, spend, 'reserve')
    if (refusal) throw refusal
    // Held where it can be in the way (a budget with limits) and on the root, which answers
    // for the whole tree whether anything is held; a budget with no limits has room for it.
    for (let node: BudgetNode | undefined = this.#firstLimited; node; node = node.#limitedAbove) {
      node.#books.hold(books, 1)
    }
    return new HeldReservation(this, books, spend, heldBooks)
  }

  /** Gives back what a reservation held, on the whole chain, and wakes whoever waits for it. */
  static release(budget: BudgetNode, books: Books): void {
    for (let node: BudgetNode | undefined = budget.#firstLimited; node; node = node.#limitedAbove) {
      node.#books.hold(books, -1)
    }
    wakeReleaseWaiters(budget.#root.#releaseWaiters)
  }

  /** Records what a reservation's call really used. */
  static record(budget: BudgetNode, books: Books, spend: Spend, wallet: string | undefined): void {
    budget.#apply(books, spend, wallet)
  }

  nextRelease(): Promise<void> | undefined {
    // The root holds every reservation of the tree, so it holds one iff any budget on this
    // chain does (each holds its own and its descendants', and the root is on every chain).
    const root = this.#root
    if (!root.#books.holds()) return undefined
    root.#releaseWaiters ??= new Set()
    return waitForRelease([root.#releaseWaiters])
  }

  remaining(): Remaining {
    this.#checkDeadline()
    let calls = Infinity
    let tokens = Infinity
    let cost: bigint | undefined
    const wallMs = this.#chainDeadline - this.#now()
    for (let node: BudgetNode | undefined = this.#firstLimited; node; node = node.#limitedAbove) {
      calls = Math.min(calls, node.#books.left('calls'))
      tokens = Math.min(tokens, node.#books.left('tokens'))
      const left = node.#books.leftCost()
      if (left !== undefined && (cost === undefined || left < cost)) cost = left
    }
    return {
      calls: Math.max(0, calls),
      tokens: Math.max(0, tokens),
      costUsd: cost === undefined ? Infinity : cost > 0n ? fromUsdUnits(cost) : 0,
      wallMs: Math.max(0, wallMs),
    }
  }

  spent(): Spend & { wallMs: number } {
    // The books' copy is made for this call: the time goes on it, with no second object.
    const spent = this.#books.spent() as Spend & { wallMs: number }
    spent.wallMs = this.#now() - this.#startedAt
    return spent
  }

  spentByWallet(): Record<string, Spend> {
    return this.#books.spentByWallet()
  }

  cancel(reason?: string): void {
    if (!this.#reason) this.#abort(new BudgetCancelledError(this.name, reason))
  }

  throwIfAborted(): void {
    this.#checkDeadline()
    if (this.#reason) throw this.#reason
  }

  onCharge(listener: (event: ChargeEvent) => void): () => void {
    this.#listeners ??= new Set()
    const listeners = this.#listeners
    const root = this.#root
    if (listeners.size === 0) root.#listeningBudgets += 1
    listeners.add(listener)
    return () => {
      const removed = listeners.delete(listener)
      if (removed && listeners.size === 0) root.#listeningBudgets -= 1
      return removed
    }
  }

  /** Refuses a child more than is left, naming the budget whose limit is in the way. */
  #refuseChild(dimension: Dimension | 'wallMs', requested: number): never {
    // The budget in the way may be an ancestor.
    const limiting = this.#limitingNode(dimension)
    if (dimension === 'wallMs') {
      throw new BudgetExceededError({
        budget: limiting.name,
        dimension: 'wallMs',
        limit: limiting.limits.maxWallMs ?? Infinity,
        spent: this.#now() - limiting.#startedAt,
        requested,
        action: 'give a child',
      })
    }
    throw new BudgetExceededError({
      budget: limiting.name,
      dimension,
      limit: limiting.#books.limitOf(dimension),
      spent: limiting.#books.used(dimension),
      requested,
      action: 'give a child',
    })
  }

  /** The budget in the chain with the least left in `key`. */
  #limitingNode(key: Dimension | 'wallMs'): BudgetNode {
    let limiting: BudgetNode = this
    let least = Infinity
    // Only a refused child asks, so this walks the whole chain: it is not on the hot path.
    for (let node: BudgetNode | undefined = this; node; node = node.parent) {
      const left =
        key === 'wallMs'
          ? node.#deadline - this.#now()
          : node.#books.limitOf(key) - node.#books.used(key)
      if (left < least) {
        least = left
        limiting = node
      }
    }
    return limiting
  }

  /** The error naming the first budget in the chain that `books` would take past a limit. */
  #refusal(books: Books, spend: Spend, action: string): BudgetExceededError | undefined {
    // A budget with no limit of its own never refuses: only those that can are visited.
    for (let node: BudgetNode | undefined = this.#firstLimited; node; node = node.#limitedAbove) {
      const dimension = node.#books.overrun(books)
      if (dimension) {
        return new BudgetExceededError({
          budget: node.name,
          dimension,
          limit: node.#books.limitOf(dimension),
          spent: node.#books.used(dimension),
          requested: spend[dimension],
          action,
        })
      }
    }
    return undefined
  }

  #apply(books: Books, spend: Spend, walletInput: string | undefined): void {
    const wallet = walletInput ? walletKey(walletInput) : undefined
    // Recorded here; each ancestor takes it in when it is next read (its checks read it).
    this.#books.record(books, wallet)
    // From the charger up: a budget whose own limit this charge used up is aborted with its
    // own reason before an ancestor's abort reaches it, so each reports the limit it hit.
    for (let node: BudgetNode | undefined = this.#firstLimited; node; node = node.#limitedAbove) {
      const dimension = node.#books.exhausted(books)
      if (dimension) {
        node.#abort(
          new BudgetExceededError({
            budget: node.name,
            dimension,
            limit: node.#books.limitOf(dimension),
            spent: node.#books.used(dimension) - node.#books.reservedOf(dimension),
            requested: 0,
            action: 'charge more than',
          }),
        )
      }
    }
    this.#notify({ budget: this.name, usage: spend, ...(wallet ? { wallet } : {}) })
  }

  /**
   * Listeners run only once the charge is recorded on the whole chain, so a throwing listener
   * cannot leave it half applied. Every listener runs; the first error is then rethrown.
   */
  #notify(event: ChargeEvent): void {
    if (this.#root.#listeningBudgets === 0) return
    let first: { error: unknown } | undefined
    for (let node: BudgetNode | undefined = this; node; node = node.parent) {
      if (!node.#listeners || node.#listeners.size === 0) continue
      for (const listener of [...node.#listeners]) {
        try {
          listener({ ...event, usage: { ...event.usage } })
        } catch (error) {
          first ??= { error }
        }
      }
    }
    if (first) throw first.error
  }

  /**
   * Expires the outermost budget in the chain whose deadline has passed. A child's default
   * deadline is its parent's, so when both pass it is the parent's limit that ran out, whichever
   * timer fires first.
   */
  #checkDeadline(): void {
    // Aborted here means nothing above is left to expire either (the signal follows ancestors).
    if (!this.#deadlineInChain || this.#reason) return
    const now = this.#now()
    // Nothing in the chain is due before its earliest deadline.
    if (this.#chainDeadline > now) return
    let outermost: BudgetNode | undefined
    const first = Number.isFinite(this.#deadline) ? this : this.#deadlineAbove
    for (let node: BudgetNode | undefined = first; node; node = node.#deadlineAbove) {
      if (node.#deadline <= now) outermost = node
    }
    if (outermost) outermost.#expire()
  }

  #expire(): void {
    this.#abort(
      new BudgetExceededError({
        budget: this.name,
        dimension: 'wallMs',
        limit: this.limits.maxWallMs ?? 0,
        spent: this.#now() - this.#startedAt,
        requested: 0,
      }),
    )
  }

  /** Aborts this budget, then every descendant not aborted yet, with the same reason. */
  #abort(reason: Error): void {
    if (this.#reason) return
    this.#reason = reason
    this.#timer?.clear()
    this.#controller?.abort(reason)
    for (const ref of membersOf(this.#children)) {
      const child = ref.deref()
      if (child) child.#abort(reason)
    }
  }
}

/** How a reservation reaches the books of the budget that holds it: one object for all. */
const heldBooks: HeldReservationBooks<BudgetNode> = {
  release: (budget, books) => BudgetNode.release(budget, books),
  record: (budget, books, spend, wallet) => BudgetNode.record(budget, books, spend, wallet),
}
