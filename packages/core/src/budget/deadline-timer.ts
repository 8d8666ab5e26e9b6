/** setTimeout fires at once past 2^31 - 1 ms; longer deadlines are reached in steps. */
const MAX_TIMER_MS = 2_147_483_647

export type DeadlineTimerOptions = {
  deadline: number
  now: () => number
  /** The clock reached the deadline. */
  onDue: () => void
  /** The budget is aborted already: the timer stops. */
  isDone: () => boolean
}

/**
 * The timer of one budget's deadline. The clock decides, not the timer: it may be injected, or
 * the delay may have been capped, so a timer that fires early waits again.
 *
 * @example
 * const timer = new DeadlineTimer({ deadline: Date.now() + 60_000, now: Date.now, onDue, isDone })
 * timer.clear()
 */
export class DeadlineTimer {
  readonly #options: DeadlineTimerOptions
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(options: DeadlineTimerOptions) {
    this.#options = options
    this.#schedule()
  }

  clear(): void {
    clearTimeout(this.#timer)
  }

  #schedule(): void {
    const { deadline, now } = this.#options
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, deadline - now()))
    this.#timer = setTimeout(() => {
      if (this.#options.isDone()) return
      if (now() >= deadline) this.#options.onDue()
      else this.#schedule()
    }, delay)
    this.#timer.unref?.()
  }
}
