import { ValidationError } from '../errors/baton-error'
import { fromUsdUnits, MAX_USD, toUsdUnits } from '../money/usd-units'
import { type BudgetInput, type BudgetLimits, Budget as BudgetSchema } from '../schemas/budget'
import { issuesOf } from '../schemas/parse'
import { isWallet, parseWallet } from '../wallet/parse-wallet'
import { BudgetCancelledError, BudgetExceededError } from './budget-errors'

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

/** setTimeout fires at once past 2^31 - 1 ms; longer deadlines are reached in steps. */
const MAX_TIMER_MS = 2_147_483_647
const DIMENSIONS = ['calls', 'tokens', 'costUsd'] as const
type Dimension = (typeof DIMENSIONS)[number]

/**
 * Creates a root budget. Limits left out are unlimited.
 *
 * @example
 * const budget = createBudget({ calls: 20, cost: 0.5, seconds: 60 })
 * const child = budget.child({ calls: 5 })
 * child.charge({ calls: 1, tokens: 420, costUsd: 0.002 }) // also charged to `budget`
 */
export function createBudget(limits: BudgetInput = {}, options: CreateBudgetOptions = {}): Budget {
  return new BudgetNode(
    normalize(limits),
    options.name ?? 'root',
    undefined,
    options.now ?? Date.now,
  )
}

function normalize(limits: BudgetInput | undefined): BudgetLimits {
  // No limits is the common child ("all the parent has left"): nothing to check.
  if (limits == null || (typeof limits === 'object' && isEmpty(limits))) return {}
  const result = BudgetSchema.safeParse(limits)
  if (!result.success) throw new ValidationError('budget', issuesOf(result.error))
  return result.data
}

function isEmpty(value: object): boolean {
  for (const _key in value) return false
  return Object.getPrototypeOf(value) === Object.prototype
}

/**
 * Books in exact units: calls and tokens are whole numbers; money is a bigint of 1e-15 USD, so
 * no number of charges drifts, vanishes or overflows to `Infinity`.
 */
type Books = { calls: number; tokens: number; cost: bigint }
const zero = (): Books => ({ calls: 0, tokens: 0, cost: 0n })
const toPublic = (books: Books): Spend => ({
  calls: books.calls,
  tokens: books.tokens,
  costUsd: fromUsdUnits(books.cost),
})

/** Checksumming hashes the address; a run charges the same few wallets over and over. */
const walletKeys = new Map<string, string>()

/** Any-case spellings of one wallet attribute to one (EIP-55) key; other labels stay as given. */
function walletKey(wallet: string): string {
  let key = walletKeys.get(wallet)
  if (key === undefined) {
    key = isWallet(wallet) ? parseWallet(wallet) : wallet
    if (walletKeys.size >= 1024) walletKeys.clear()
    walletKeys.set(wallet, key)
  }
  return key
}

const WHOLE = 'must be a whole number ≥ 0'

/** A charge as exact books; bad input is a `ValidationError` naming every bad field. */
function toBooks(usage: ChargeInput): { books: Books; spend: Spend } {
  const calls = usage.calls ?? 0
  const input = usage.inputTokens ?? 0
  const output = usage.outputTokens ?? 0
  const tokens = usage.tokens ?? input + output
  const costUsd = usage.costUsd ?? 0
  if (
    !isCount(calls) ||
    !isCount(input) ||
    !isCount(output) ||
    !isCount(tokens) ||
    !(costUsd >= 0 && costUsd <= MAX_USD)
  ) {
    throw new ValidationError('usage', usageIssues(usage))
  }
  const cost = toUsdUnits(costUsd)
  return { books: { calls, tokens, cost }, spend: { calls, tokens, costUsd: fromUsdUnits(cost) } }
}

const isCount = (value: number) => Number.isSafeInteger(value) && value >= 0

function usageIssues(usage: ChargeInput): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = []
  const keys =
    usage.tokens === undefined
      ? (['calls', 'inputTokens', 'outputTokens'] as const)
      : (['calls', 'tokens'] as const)
  for (const key of keys) {
    if (!isCount(usage[key] ?? 0)) issues.push({ path: key, message: WHOLE })
  }
  const sum = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0)
  if (usage.tokens === undefined && issues.length === 0 && !isCount(sum)) {
    issues.push({ path: 'tokens', message: 'inputTokens + outputTokens must be a safe integer' })
  }
  const costUsd = usage.costUsd ?? 0
  if (!(costUsd >= 0 && costUsd <= MAX_USD)) {
    issues.push({ path: 'costUsd', message: `must be a number of USD from 0 to ${MAX_USD}` })
  }
  return issues
}

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

class BudgetNode implements Budget {
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
  /** The names given explicitly to its children, which neither siblings nor automatic names reuse. */
  #takenNames: Set<string> | undefined
  /** The numbers explicit children took: `{name}/{n}` for any other n ≤ the count is automatic. */
  #explicitNumbers: Set<number> | undefined
  /** Per name numbered because it was taken: the next number to try, so a loop costs O(1). */
  #nextNumber: Map<string, number> | undefined
  #childCount = 0

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
    const wanted = normalize(limits)
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
    const explicit = options.name === undefined ? undefined : this.#explicitName(options)
    const child = new BudgetNode(capped, this.#childName(explicit), this, this.#now)
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
    return new HeldReservation(this, books, spend)
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

  /**
   * The explicit name a child gets: as given, or numbered (`name#2`, ...) when a sibling has it
   * and `ifTaken` says so. A taken name is otherwise a `ValidationError` naming the parent.
   */
  #explicitName(options: ChildOptions): string {
    const { name, ifTaken = 'refuse' } = options
    if (typeof name !== 'string' || name.length === 0) {
      throw new ValidationError('budget child options', [
        { path: 'name', message: `must be a non-empty string (child of budget "${this.name}")` },
      ])
    }
    if (ifTaken !== 'refuse' && ifTaken !== 'number') {
      throw new ValidationError('budget child options', [
        { path: 'ifTaken', message: 'must be "refuse" or "number"' },
      ])
    }
    if (!this.#isTaken(name)) return name
    if (ifTaken === 'refuse') {
      throw new ValidationError('budget child options', [
        {
          path: 'name',
          message: `budget "${this.name}" already has a child named "${name}"; each child's name is unique among its siblings`,
        },
      ])
    }
    this.#nextNumber ??= new Map()
    let number = this.#nextNumber.get(name) ?? 2
    while (this.#isTaken(`${name}#${number}`)) number += 1
    this.#nextNumber.set(name, number + 1)
    return `${name}#${number}`
  }

  /** Whether a child of this budget was given `name`, explicitly or automatically. */
  #isTaken(name: string): boolean {
    if (this.#takenNames?.has(name)) return true
    const prefix = `${this.name}/`
    if (!name.startsWith(prefix)) return false
    const digits = name.slice(prefix.length)
    if (!/^[1-9]\d*$/.test(digits)) return false
    const number = Number(digits)
    // Every child took a number; those explicit children took were not given as names.
    return number <= this.#childCount && !this.#explicitNumbers?.has(number)
  }

  /**
   * An explicit name (checked already) is used as given; an automatic one is the parent's name
   * and the next number no sibling's name (explicit or automatic) already has.
   */
  #childName(explicit: string | undefined): string {
    // Every child takes a number, so an automatic name says which child it was.
    this.#childCount += 1
    if (explicit !== undefined) {
      this.#takenNames ??= new Set()
      this.#takenNames.add(explicit)
      this.#explicitNumbers ??= new Set()
      this.#explicitNumbers.add(this.#childCount)
      return explicit
    }
    // The counter only grows, so automatic names never collide with each other; only an
    // explicit name of the automatic shape can be in the way.
    let name = `${this.name}/${this.#childCount}`
    while (this.#takenNames?.has(name)) {
      this.#childCount += 1
      name = `${this.name}/${this.#childCount}`
    }
    return name
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

/** A class rather than closures: a busy tree makes one per model call. */
class HeldReservation implements Reservation {
  readonly amount: Spend
  readonly #budget: BudgetNode
  readonly #books: Books
  #open = true

  constructor(budget: BudgetNode, books: Books, amount: Spend) {
    this.#budget = budget
    this.#books = books
    this.amount = amount
  }

  release(): void {
    if (!this.#open) return
    this.#open = false
    BudgetNode.release(this.#budget, this.#books)
  }

  settle(actual: ChargeInput, options: ChargeOptions = {}): void {
    if (!this.#open) return
    // An invalid amount throws here and leaves the reservation held.
    const settled = toBooks(actual)
    this.release()
    // Recorded even on a cancelled budget: a call that returned was paid for, and an
    // ancestor's books must show it whatever happened to the branch that made it.
    BudgetNode.record(this.#budget, settled.books, settled.spend, options.wallet)
  }
}

function add(target: Books, books: Books, sign: 1 | -1): void {
  target.calls += sign * books.calls
  target.tokens += sign * books.tokens
  target.cost += sign === 1 ? books.cost : -books.cost
}
