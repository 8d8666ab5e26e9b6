/**
 * Counts the `AbortController`s made from now until `restore` is called (the global is
 * replaced by a counting subclass meanwhile). For tests that a path makes no abort signal.
 *
 * @example
 * const made = countAbortControllers()
 * try { await run(); expect(made.count).toBe(0) } finally { made.restore() }
 */
export function countAbortControllers(): { readonly count: number; restore: () => void } {
  const Original = globalThis.AbortController
  const counter = {
    count: 0,
    restore: () => {
      globalThis.AbortController = Original
    },
  }
  globalThis.AbortController = class extends Original {
    constructor() {
      super()
      counter.count += 1
    }
  }
  return counter
}
