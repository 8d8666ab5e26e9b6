/** How long text waits for more before it goes out, and how much may wait at most. */
export const DELTA_INTERVAL_MS = 50
export const DELTA_MAX_CHARACTERS = 400

/**
 * Gathers the text a step's model streams into few `step-delta` events: the first piece goes
 * out at once (the time to the first character is what a reader waits for), later pieces
 * wait until ~50 ms have passed since the last event or a few hundred characters are waiting,
 * so a fast model cannot flood the event stream. `finish` sends what is left.
 *
 * @example
 * const text = new StepTextCoalescer({ send: (text) => emit({ type: 'step-delta', ...where, text }) })
 * text.push('Hel'); text.push('lo'); text.finish()
 */
export class StepTextCoalescer {
  readonly #send: (text: string) => void
  readonly #intervalMs: number
  readonly #maxCharacters: number
  readonly #started: number
  #waiting = ''
  #lastSent = 0
  #timer: ReturnType<typeof setTimeout> | undefined
  #firstTextMs: number | undefined
  #finished = false

  constructor(options: {
    send: (text: string) => void
    intervalMs?: number
    maxCharacters?: number
    now?: number
  }) {
    this.#send = options.send
    this.#intervalMs = options.intervalMs ?? DELTA_INTERVAL_MS
    this.#maxCharacters = options.maxCharacters ?? DELTA_MAX_CHARACTERS
    this.#started = options.now ?? Date.now()
  }

  /** Milliseconds from the step's start to its first text, once there was some. */
  get firstTextMs(): number | undefined {
    return this.#firstTextMs
  }

  push(text: string): void {
    if (this.#finished || text.length === 0) return
    const now = Date.now()
    this.#firstTextMs ??= now - this.#started
    this.#waiting += text
    const due = this.#lastSent === 0 || now - this.#lastSent >= this.#intervalMs
    if (due || this.#waiting.length >= this.#maxCharacters) {
      this.#flush()
      return
    }
    this.#timer ??= setTimeout(() => this.#flush(), this.#intervalMs - (now - this.#lastSent))
  }

  /** Sends what is waiting; nothing is sent after it. */
  finish(): void {
    if (this.#finished) return
    this.#flush()
    this.#finished = true
  }

  #flush(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#waiting.length === 0) return
    const text = this.#waiting
    this.#waiting = ''
    this.#lastSent = Date.now()
    this.#send(text)
  }
}
