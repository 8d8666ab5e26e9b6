/** How long a timing loop runs at least, unless told otherwise; the smoke test shortens it. */
export const timing = { minMs: 300 }

/**
 * Times `work` (which does `operations` operations per call) after one warm-up call, repeating
 * it until at least `minMs` (default `timing.minMs`) have passed, and returns the time per operation in microseconds.
 *
 * @example
 * const microseconds = await timePerOperation({ operations: 1000, work: () => chain(1000) })
 */
export async function timePerOperation(options: {
  operations: number
  work: () => Promise<unknown>
  minMs?: number
  warmUp?: boolean
}): Promise<{ microseconds: number; repeats: number }> {
  const { operations, work, minMs = timing.minMs, warmUp = true } = options
  if (warmUp) await work()
  globalThis.gc?.()
  let repeats = 0
  const started = performance.now()
  let elapsed = 0
  do {
    await work()
    repeats += 1
    elapsed = performance.now() - started
  } while (elapsed < minMs)
  return { microseconds: (elapsed * 1000) / (repeats * operations), repeats }
}
