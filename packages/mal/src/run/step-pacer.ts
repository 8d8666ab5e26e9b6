import { DEFAULT_MAX_RUN_STEPS } from '../validate/plan-limits'
import { StepLimitError } from './run-errors'

// How long a run may keep the event loop to itself before it gives the loop a turn: short
// enough that timers, sockets and signals are served promptly, long enough that the turns cost
// nothing measurable on steps that finish in microseconds.
const MAX_TURN_MS = 10

/**
 * Paces a run's steps: counts every step against the run-wide cap and, when the run has kept
 * the event loop busy for `MAX_TURN_MS` without a turn (steps that finish without real I/O, such
 * as `scratch` in a loop, never let it turn), waits one `setImmediate` so HTTP requests, timers,
 * a cancel and SIGTERM are served while the run goes on.
 *
 * @example
 * const pacer = new StepPacer({ maxSteps: 50_000 })
 * const turn = pacer.beforeStep('steps[0]'); if (turn) await turn
 */
export class StepPacer {
  readonly #maxSteps: number
  #steps: number
  // The `setImmediate` that marks the event loop's next turn, and when it was asked for.
  #turn: Promise<void> | undefined
  #askedAt = 0

  constructor(options: { maxSteps?: number; stepsBefore?: number } = {}) {
    this.#maxSteps = options.maxSteps ?? DEFAULT_MAX_RUN_STEPS
    this.#steps = options.stepsBefore ?? 0
  }

  /** Steps executed so far (earlier attempts' included). */
  get steps(): number {
    return this.#steps
  }

  /**
   * Counts the step at `path` (throwing `StepLimitError` past the cap) and gives, when the
   * event loop has had no turn for too long, the promise to await first.
   */
  beforeStep(path: string): Promise<void> | undefined {
    this.#steps += 1
    if (this.#steps > this.#maxSteps) throw new StepLimitError({ maxSteps: this.#maxSteps, path })
    const now = performance.now()
    if (!this.#turn) {
      this.#askedAt = now
      this.#turn = new Promise<void>((resolve) => {
        setImmediate(() => {
          this.#turn = undefined
          resolve()
        })
      })
      return undefined
    }
    // Still pending: the loop has not turned since it was asked for.
    return now - this.#askedAt >= MAX_TURN_MS ? this.#turn : undefined
  }
}
