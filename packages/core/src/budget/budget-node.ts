import { fromUsdUnits, toUsdUnits } from '../money/usd-units'
import type { BudgetInput, BudgetLimits } from '../schemas/budget'
import { add, type Books, toBooks, toPublic, walletKey, zero } from './books'
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
import { ChildNames } from './child-names'
import { HeldReservation, type HeldReservationBooks } from './held-reservation'
import { normalizeLimits } from './normalize-limits'

/** setTimeout fires at once past 2^31 - 1 ms; longer deadlines are reached in steps. */
const MAX_TIMER_MS = 2_147_483_647
const DIMENSIONS = ['calls', 'tokens', 'costUsd'] as const
type Dimension = (typeof DIMENSIONS)[number]

/**
 * Descendants are reached through weak references, so a finished child is collected with no
 * bookkeeping; its signal keeps it alive as long as anyone may still be listening to it.
 */
const nodeOfSignal = new WeakMap<AbortSignal, BudgetNode>()
const forgetChild = new FinalizationRegistry<{
  children: Set<WeakRef<BudgetNode>>
  ref: WeakRef<BudgetNode>
}>(({ children, ref }) => children.delete(ref))

/**
 * Whether `budget` already aborts whenever `signal` does: `signal` is the signal of the budget
 * itself or of one of its ancestors. A run given such a signal needs no second one.
 *
 * @example
 * followsSignal(root.child(), root.signal) // true
 */
export function followsSignal(budget: Budget, signal: AbortSignal): boolean {
  const owner = nodeOfSignal.get(signal)
  if (!owner) return false
  for (let node: Budget | undefined = budget; node; node = node.parent) {
    if (node === owner) return true
  }
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
  // One controller per node, linked by the tree itself: aborting a node aborts its children
  // directly, with no AbortSignal.any per node (whose order of events differs between runtimes).
  readonly #controller = new AbortController()
  readonly signal: AbortSignal
  readonly #limitCalls: number
  readonly #limitTokens: number
  /** `undefined`: no cost limit. */
  readonly #limitCost: bigint | undefined
  #spent = zero()
  #reserved = zero()
  // Made on first use: a busy tree makes a node per delegation, and most never need them.
  #byWallet: Map<string, Books> | undefined
  #listeners: Set<(event: ChargeEvent) => void> | undefined
  #releaseWaiters: Set<() => void> | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  #children: Set<WeakRef<BudgetNode>> | undefined
  /** The names its children took. */
  #childNames: ChildNames | undefined

  constructor(
    limits: BudgetLimits,
    name: string,
    parent: BudgetNode | undefined,
    now: () => number,
  ) {
    this.name = name
    this.limits = Object.freeze({ ...limits })
    this.parent = parent
    this.#now = now
    this.#startedAt = now()
    this.#limitCalls = limits.calls ?? Infinity
    this.#limitTokens = limits.tokens ?? Infinity
    this.#limitCost = limits.costUsd === undefined ? undefined : toUsdUnits(limits.costUsd)
    this.#deadline = limits.maxWallMs === undefined ? Infinity : this.#startedAt + limits.maxWallMs
    this.#deadlineInChain =
      Number.isFinite(this.#deadline) || (parent ? parent.#deadlineInChain : false)
    this.signal = this.#controller.signal
    nodeOfSignal.set(this.signal, this)
    // A deadline no earlier than an ancestor's is reached by the ancestor's timer.
    if (this.#deadline < (parent ? parent.#nearestDeadline() : Infinity)) this.#scheduleDeadline()
  }

  get aborted(): boolean {
    this.#checkDeadline()
    return this.signal.aborted
  }

  child(limits?: BudgetInput, options: ChildOptions = {}): Budget {
    this.throwIfAborted()
    const wanted = normalizeLimits(limits)
    const left = this.remaining()
    const capped: BudgetLimits = {}
    for (const key of DIMENSIONS) {
      const want = wanted[key]
      if (want !== undefined && want > left[key]) {
        // Name the budget whose limit is in the way, which may be an ancestor.
        const limiting = this.#limitingNode(key)
        throw new BudgetExceededError({
          budget: limiting.name,
          dimension: key,
          limit: limiting.#limitOf(key),
          spent: limiting.#used(key),
          requested: want,
          action: 'give a child',
        })
      }
      const value = want ?? left[key]
      if (Number.isFinite(value)) capped[key] = value
    }
    const wantWall = wanted.maxWallMs
    if (wantWall !== undefined && wantWall > left.wallMs) {
      const limiting = this.#limitingNode('wallMs')
      throw new BudgetExceededError({
        budget: limiting.name,
        dimension: 'wallMs',
        limit: limiting.limits.maxWallMs ?? Infinity,
        spent: this.#now() - limiting.#startedAt,
        requested: wantWall,
        action: 'give a child',
      })
    }
    const wall = wantWall ?? left.wallMs
    if (Number.isFinite(wall)) capped.maxWallMs = wall
    // Checked before anything changes: a refused name leaves the parent as it was.
    this.#childNames ??= new ChildNames(this.name)
    const explicit = options.name === undefined ? undefined : this.#childNames.explicit(options)
    const child = new BudgetNode(capped, this.#childNames.take(explicit), this, this.#now)
    const ref = new WeakRef(child)
    this.#children ??= new Set()
    this.#children.add(ref)
    forgetChild.register(child, { children: this.#children, ref }, ref)
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
    if (this.signal.aborted) return false
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
    for (let node: BudgetNode | undefined = this; node; node = node.parent) {
      add(node.#reserved, books, 1)
    }
    return new HeldReservation(this, books, spend, heldBooks)
  }

  /** Gives back what a reservation held, on the whole chain, and wakes whoever waits for it. */
  static release(budget: BudgetNode, books: Books): void {
    for (let node: BudgetNode | undefined = budget; node; node = node.parent) {
      add(node.#reserved, books, -1)
    }
    for (let node: BudgetNode | undefined = budget; node; node = node.parent) {
      node.#wakeReleaseWaiters()
    }
  }

  /** Records what a reservation's call really used. */
  static record(budget: BudgetNode, books: Books, spend: Spend, wallet: string | undefined): void {
    budget.#apply(books, spend, wallet)
  }

  nextRelease(): Promise<void> | undefined {
    const chain: BudgetNode[] = []
    let held = false
    for (let node: BudgetNode | undefined = this; node; node = node.parent) {
      chain.push(node)
      const reserved = node.#reserved
      if (reserved.calls > 0 || reserved.tokens > 0 || reserved.cost > 0n) held = true
    }
    if (!held) return undefined
    return new Promise((resolve) => {
      // Registered on every node of the chain: a release anywhere below a common ancestor
      // wakes that ancestor, and the first wake-up unregisters the waiter everywhere.
      const wake = () => {
        for (const node of chain) node.#releaseWaiters?.delete(wake)
        resolve()
      }
      for (const node of chain) {
        node.#releaseWaiters ??= new Set()
        node.#releaseWaiters.add(wake)
      }
    })
  }

  remaining(): Remaining {
    this.#checkDeadline()
    let calls = Infinity
    let tokens = Infinity
    let cost: bigint | undefined
    let wallMs = Infinity
    const now = this.#now()
    for (let node: BudgetNode | undefined = this; node; node = node.parent) {
      calls = Math.min(calls, node.#limitCalls - node.#spent.calls - node.#reserved.calls)
      tokens = Math.min(tokens, node.#limitTokens - node.#spent.tokens - node.#reserved.tokens)
      if (node.#limitCost !== undefined) {
        const left = node.#limitCost - node.#spent.cost - node.#reserved.cost
        if (cost === undefined || left < cost) cost = left
      }
      wallMs = Math.min(wallMs, node.#deadline - now)
    }
    return {
      calls: Math.max(0, calls),
      tokens: Math.max(0, tokens),
      costUsd: cost === undefined ? Infinity : cost > 0n ? fromUsdUnits(cost) : 0,
      wallMs: Math.max(0, wallMs),
    }
  }

  spent(): Spend & { wallMs: number } {
    return { ...toPublic(this.#spent), wallMs: this.#now() - this.#startedAt }
  }

  spentByWallet(): Record<string, Spend> {
    const result: Record<string, Spend> = {}
    for (const [wallet, books] of this.#byWallet ?? []) result[wallet] = toPublic(books)
    return result
  }

  cancel(reason?: string): void {
    if (!this.signal.aborted) this.#abort(new BudgetCancelledError(this.name, reason))
  }

  throwIfAborted(): void {
    this.#checkDeadline()
    if (this.signal.aborted) throw this.signal.reason
  }

  onCharge(listener: (event: ChargeEvent) => void): () => void {
    this.#listeners ??= new Set()
    const listeners = this.#listeners
    listeners.add(listener)
    return () => listeners.delete(listener)
  }

  #limitOf(key: Dimension): number {
    return this.limits[key] ?? Infinity
  }

  /** What this budget has spent and holds in `key`, in USD for money. */
  #used(key: Dimension): number {
    if (key === 'costUsd') return fromUsdUnits(this.#spent.cost + this.#reserved.cost)
    return this.#spent[key] + this.#reserved[key]
  }

  /** The budget in the chain with the least left in `key`. */
  #limitingNode(key: Dimension | 'wallMs'): BudgetNode {
    let limiting: BudgetNode = this
    let least = Infinity
    for (let node: BudgetNode | undefined = this; node; node = node.parent) {
      const left =
        key === 'wallMs' ? node.#deadline - this.#now() : node.#limitOf(key) - node.#used(key)
      if (left < least) {
        least = left
        limiting = node
      }
    }
    return limiting
  }

  /** The error naming the first budget in the chain that `books` would take past a limit. */
  #refusal(books: Books, spend: Spend, action: string): BudgetExceededError | undefined {
    for (let node: BudgetNode | undefined = this; node; node = node.parent) {
      let dimension: Dimension | undefined
      if (
        books.calls > 0 &&
        node.#spent.calls + node.#reserved.calls + books.calls > node.#limitCalls
      ) {
        dimension = 'calls'
      } else if (
        books.tokens > 0 &&
        node.#spent.tokens + node.#reserved.tokens + books.tokens > node.#limitTokens
      ) {
        dimension = 'tokens'
      } else if (
        books.cost > 0n &&
        node.#limitCost !== undefined &&
        node.#spent.cost + node.#reserved.cost + books.cost > node.#limitCost
      ) {
        dimension = 'costUsd'
      }
      if (dimension) {
        return new BudgetExceededError({
          budget: node.name,
          dimension,
          limit: node.#limitOf(dimension),
          spent: node.#used(dimension),
          requested: spend[dimension],
          action,
        })
      }
    }
    return undefined
  }

  #apply(books: Books, spend: Spend, walletInput: string | undefined): void {
    const wallet = walletInput ? walletKey(walletInput) : undefined
    for (let node: BudgetNode | undefined = this; node; node = node.parent) {
      add(node.#spent, books, 1)
      if (wallet) {
        node.#byWallet ??= new Map()
        const entry = node.#byWallet.get(wallet)
        if (entry) add(entry, books, 1)
        else node.#byWallet.set(wallet, { ...books })
      }
    }
    // From the charger up: a budget whose own limit this charge used up is aborted with its
    // own reason before an ancestor's abort reaches it, so each reports the limit it hit.
    for (let node: BudgetNode | undefined = this; node; node = node.parent) {
      const dimension = node.#exhausted(books)
      if (dimension) {
        node.#abort(
          new BudgetExceededError({
            budget: node.name,
            dimension,
            limit: node.#limitOf(dimension),
            spent: node.#used(dimension) - node.#reservedOf(dimension),
            requested: 0,
            action: 'charge more than',
          }),
        )
      }
    }
    this.#notify({ budget: this.name, usage: spend, ...(wallet ? { wallet } : {}) })
  }

  /** The dimension this charge used that has now reached its limit, if any. */
  #exhausted(books: Books): Dimension | undefined {
    // Only the dimensions this charge used can have just run out.
    if (books.calls > 0 && this.#spent.calls >= this.#limitCalls) return 'calls'
    if (books.tokens > 0 && this.#spent.tokens >= this.#limitTokens) return 'tokens'
    if (books.cost > 0n && this.#limitCost !== undefined && this.#spent.cost >= this.#limitCost) {
      return 'costUsd'
    }
    return undefined
  }

  #reservedOf(key: Dimension): number {
    return key === 'costUsd' ? fromUsdUnits(this.#reserved.cost) : this.#reserved[key]
  }

  /**
   * Listeners run only once the charge is recorded on the whole chain, so a throwing listener
   * cannot leave it half applied. Every listener runs; the first error is then rethrown.
   */
  #notify(event: ChargeEvent): void {
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

  #wakeReleaseWaiters(): void {
    if (!this.#releaseWaiters || this.#releaseWaiters.size === 0) return
    for (const wake of [...this.#releaseWaiters]) wake()
  }

  #nearestDeadline(): number {
    let nearest = Infinity
    for (let node: BudgetNode | undefined = this; node; node = node.parent) {
      if (node.#deadline < nearest) nearest = node.#deadline
    }
    return nearest
  }

  #scheduleDeadline(): void {
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, this.#deadline - this.#now()))
    this.#timer = setTimeout(() => {
      if (this.signal.aborted) return
      // The clock decides, not the timer: it may be injected, or the delay may have been capped.
      if (this.#now() >= this.#deadline) this.#checkDeadline()
      else this.#scheduleDeadline()
    }, delay)
    this.#timer.unref?.()
  }

  /**
   * Expires the outermost budget in the chain whose deadline has passed. A child's default
   * deadline is its parent's, so when both pass it is the parent's limit that ran out, whichever
   * timer fires first.
   */
  #checkDeadline(): void {
    // Aborted here means nothing above is left to expire either (the signal follows ancestors).
    if (!this.#deadlineInChain || this.signal.aborted) return
    let outermost: BudgetNode | undefined
    const now = this.#now()
    for (let node: BudgetNode | undefined = this; node; node = node.parent) {
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
    if (this.signal.aborted) return
    clearTimeout(this.#timer)
    this.#controller.abort(reason)
    for (const ref of this.#children ?? []) {
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
