import { ValidationError } from '../errors/baton-error'
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
  /** A budget capped by what this one has left (default: all of it). Asking for more throws. */
  child(limits?: BudgetInput, options?: { name?: string }): Budget
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

export type CreateBudgetOptions = {
  name?: string
  /** Clock in ms (defaults to `Date.now`); drives the wall deadline and `spent().wallMs`. */
  now?: () => number
}

const EPSILON = 1e-9
/** setTimeout fires at once past 2^31 - 1 ms; longer deadlines are reached in steps. */
const MAX_TIMER_MS = 2_147_483_647
const DIMENSIONS = ['calls', 'tokens', 'costUsd'] as const

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
  const result = BudgetSchema.safeParse(limits ?? {})
  if (!result.success) throw new ValidationError('budget', issuesOf(result.error))
  return result.data
}

/** Rounds to 1e-12 USD. */
const roundUsd = (value: number): number => Math.round(value * 1e12) / 1e12

const zero = (): Spend => ({ calls: 0, tokens: 0, costUsd: 0 })

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

function toSpend(usage: ChargeInput): Spend {
  const tokens = usage.tokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0)
  const spend = { calls: usage.calls ?? 0, tokens, costUsd: usage.costUsd ?? 0 }
  for (const key of DIMENSIONS) {
    if (!Number.isFinite(spend[key]) || spend[key] < 0) {
      throw new ValidationError('usage', [{ path: key, message: 'must be a finite number ≥ 0' }])
    }
  }
  return spend
}

class BudgetNode implements Budget {
  readonly name: string
  readonly limits: Readonly<BudgetLimits>
  readonly parent: BudgetNode | undefined
  readonly #now: () => number
  readonly #startedAt: number
  readonly #deadline: number
  readonly #deadlineInChain: boolean
  readonly #controller = new AbortController()
  readonly signal: AbortSignal
  #spent = zero()
  #reserved = zero()
  #byWallet = new Map<string, Spend>()
  #listeners = new Set<(event: ChargeEvent) => void>()
  #releaseWaiters = new Set<() => void>()
  #timer: ReturnType<typeof setTimeout> | undefined
  #children = 0

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
    this.#deadline = limits.maxWallMs === undefined ? Infinity : this.#startedAt + limits.maxWallMs
    this.#deadlineInChain =
      Number.isFinite(this.#deadline) || (parent ? parent.#deadlineInChain : false)
    this.signal = parent
      ? AbortSignal.any([parent.signal, this.#controller.signal])
      : this.#controller.signal
    if (Number.isFinite(this.#deadline)) {
      this.#scheduleDeadline()
      this.signal.addEventListener('abort', () => clearTimeout(this.#timer), { once: true })
    }
  }

  get aborted(): boolean {
    this.#checkDeadline()
    return this.signal.aborted
  }

  child(limits?: BudgetInput, options: { name?: string } = {}): Budget {
    this.throwIfAborted()
    const wanted = normalize(limits)
    const left = this.remaining()
    const capped: BudgetLimits = {}
    for (const key of DIMENSIONS) {
      const want = wanted[key]
      if (want !== undefined && want > left[key] + EPSILON) {
        // Name the budget whose limit is in the way, which may be an ancestor.
        const limiting = this.#limitingNode(key)
        throw new BudgetExceededError({
          budget: limiting.name,
          dimension: key,
          limit: limiting.#limit(key),
          spent: limiting.#spent[key] + limiting.#reserved[key],
          requested: want,
          action: 'give a child',
        })
      }
      const value = want ?? left[key]
      if (Number.isFinite(value)) capped[key] = value
    }
    const wantWall = wanted.maxWallMs
    if (wantWall !== undefined && wantWall > left.wallMs + EPSILON) {
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
    this.#children += 1
    return new BudgetNode(capped, options.name ?? `${this.name}/${this.#children}`, this, this.#now)
  }

  charge(usage: ChargeInput, options: ChargeOptions = {}): void {
    const spend = toSpend(usage)
    this.#assertAffordable(spend)
    this.#apply(spend, options.wallet)
  }

  canAfford(usage: ChargeInput): boolean {
    this.#checkDeadline()
    if (this.signal.aborted) return false
    // Asking is not trying: unlike a refused charge, a "no" here aborts nothing.
    return this.#refusal(toSpend(usage), 'charge') === undefined
  }

  reserve(estimate: ChargeInput): Reservation {
    const amount = toSpend(estimate)
    this.throwIfAborted()
    // A reservation that does not fit is "not now", not "used up": it refuses this one call
    // and aborts nothing, so calls in flight on the same budget go on.
    const refusal = this.#refusal(amount, 'reserve')
    if (refusal) throw refusal
    for (const node of this.#chain()) node.#add(node.#reserved, amount, 1)
    let open = true
    const release = () => {
      if (!open) return
      open = false
      for (const node of this.#chain()) node.#add(node.#reserved, amount, -1)
      for (const node of this.#chain()) node.#wakeReleaseWaiters()
    }
    return {
      amount,
      release,
      settle: (actual, options = {}) => {
        if (!open) return
        // An invalid amount throws here and leaves the reservation held.
        const spend = toSpend(actual)
        release()
        // Recorded even on a cancelled budget: a call that returned was paid for, and an
        // ancestor's books must show it whatever happened to the branch that made it.
        this.#apply(spend, options.wallet)
      },
    }
  }

  nextRelease(): Promise<void> | undefined {
    const chain = [...this.#chain()]
    const held = chain.some((node) => DIMENSIONS.some((key) => node.#reserved[key] > EPSILON))
    if (!held) return undefined
    return new Promise((resolve) => {
      // Registered on every node of the chain: a release anywhere below a common ancestor
      // wakes that ancestor, and the first wake-up unregisters the waiter everywhere.
      const wake = () => {
        for (const node of chain) node.#releaseWaiters.delete(wake)
        resolve()
      }
      for (const node of chain) node.#releaseWaiters.add(wake)
    })
  }

  remaining(): Remaining {
    this.#checkDeadline()
    const left: Remaining = {
      calls: Infinity,
      tokens: Infinity,
      costUsd: Infinity,
      wallMs: Infinity,
    }
    for (const node of this.#chain()) {
      for (const key of DIMENSIONS) {
        const limit = node.limits[key]
        if (limit !== undefined) {
          left[key] = Math.min(
            left[key],
            Math.max(0, limit - node.#spent[key] - node.#reserved[key]),
          )
        }
      }
      left.wallMs = Math.min(left.wallMs, Math.max(0, node.#deadline - this.#now()))
    }
    return left
  }

  spent(): Spend & { wallMs: number } {
    return { ...this.#spent, wallMs: this.#now() - this.#startedAt }
  }

  spentByWallet(): Record<string, Spend> {
    return Object.fromEntries([...this.#byWallet].map(([wallet, spend]) => [wallet, { ...spend }]))
  }

  cancel(reason?: string): void {
    if (!this.#controller.signal.aborted) {
      this.#controller.abort(new BudgetCancelledError(this.name, reason))
    }
  }

  throwIfAborted(): void {
    this.#checkDeadline()
    if (this.signal.aborted) throw this.signal.reason
  }

  onCharge(listener: (event: ChargeEvent) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  *#chain(): Generator<BudgetNode> {
    for (let node: BudgetNode | undefined = this; node; node = node.parent) yield node
  }

  #limit(key: (typeof DIMENSIONS)[number]): number {
    return this.limits[key] ?? Infinity
  }

  /** The budget in the chain with the least left in `key`. */
  #limitingNode(key: (typeof DIMENSIONS)[number] | 'wallMs'): BudgetNode {
    let limiting: BudgetNode = this
    let least = Infinity
    for (const node of this.#chain()) {
      const left =
        key === 'wallMs'
          ? node.#deadline - this.#now()
          : node.#limit(key) - node.#spent[key] - node.#reserved[key]
      if (left < least) {
        least = left
        limiting = node
      }
    }
    return limiting
  }

  #assertAffordable(spend: Spend, action = 'charge'): void {
    this.throwIfAborted()
    const error = this.#refusal(spend, action)
    if (error) {
      // The run that asked cannot go on; siblings elsewhere in the tree may.
      this.#abort(error)
      throw error
    }
  }

  /** The error naming the first budget in the chain that `spend` would take past a limit. */
  #refusal(spend: Spend, action: string): BudgetExceededError | undefined {
    for (const node of this.#chain()) {
      for (const key of DIMENSIONS) {
        const limit = node.limits[key]
        if (limit === undefined || spend[key] === 0) continue
        const used = node.#spent[key] + node.#reserved[key]
        if (used + spend[key] > limit + EPSILON) {
          return new BudgetExceededError({
            budget: node.name,
            dimension: key,
            limit,
            spent: used,
            requested: spend[key],
            action,
          })
        }
      }
    }
    return undefined
  }

  #apply(spend: Spend, walletInput: string | undefined): void {
    const wallet = walletInput ? walletKey(walletInput) : undefined
    for (const node of this.#chain()) {
      node.#add(node.#spent, spend, 1)
      if (wallet) {
        const entry = node.#byWallet.get(wallet) ?? zero()
        node.#add(entry, spend, 1)
        node.#byWallet.set(wallet, entry)
      }
    }
    for (const node of this.#chain()) {
      for (const key of DIMENSIONS) {
        const limit = node.limits[key]
        // Only the dimensions this charge used can have just run out.
        if (limit !== undefined && spend[key] > 0 && node.#spent[key] >= limit - EPSILON) {
          node.#abort(
            new BudgetExceededError({
              budget: node.name,
              dimension: key,
              limit,
              spent: node.#spent[key],
              requested: 0,
              action: 'charge more than',
            }),
          )
        }
      }
    }
    this.#notify({ budget: this.name, usage: spend, ...(wallet ? { wallet } : {}) })
  }

  /**
   * Listeners run only once the charge is recorded on the whole chain, so a throwing listener
   * cannot leave it half applied. Every listener runs; the first error is then rethrown.
   */
  #notify(event: ChargeEvent): void {
    const errors: unknown[] = []
    for (const node of this.#chain()) {
      for (const listener of [...node.#listeners]) {
        try {
          listener({ ...event, usage: { ...event.usage } })
        } catch (error) {
          errors.push(error)
        }
      }
    }
    if (errors.length > 0) throw errors[0]
  }

  #wakeReleaseWaiters(): void {
    for (const wake of [...this.#releaseWaiters]) wake()
  }

  #add(target: Spend, spend: Spend, sign: 1 | -1): void {
    target.calls += sign * spend.calls
    target.tokens += sign * spend.tokens
    // Books are kept to a billionth of a cent, so sums of prices do not grow float noise.
    target.costUsd = roundUsd(target.costUsd + sign * spend.costUsd)
  }

  #scheduleDeadline(): void {
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, this.#deadline - this.#now()))
    this.#timer = setTimeout(() => {
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
    for (const node of this.#chain()) {
      if (Number.isFinite(node.#deadline) && node.#now() >= node.#deadline) outermost = node
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

  #abort(reason: Error): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(reason)
  }
}
