/** How long a timing loop runs at least, unless told otherwise; the smoke test shortens it. */
export const timing = { minMs: 300 }

/**
 * Times `work` (which does `operations` operations per call) after one warm-up call, repeating
 * it until at least `minMs` (default `timing.minMs`) have passed, and returns the time per operation in microseconds;
 * `cpuMicroseconds` beside it is the process's CPU time per operation over the same loop (on a
 * shared machine, wall time also counts the waits for a core).
 *
 * @example
 * const microseconds = await timePerOperation({ operations: 1000, work: () => chain(1000) })
 */
export async function timePerOperation(options: {
  operations: number
  work: () => Promise<unknown>
  minMs?: number
  warmUp?: boolean
}): Promise<{ microseconds: number; cpuMicroseconds: number; repeats: number }> {
  const { operations, work, minMs = timing.minMs, warmUp = true } = options
  if (warmUp) await work()
  globalThis.gc?.()
  let repeats = 0
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  let elapsed = 0
  do {
    await work()
    repeats += 1
    elapsed = performance.now() - started
  } while (elapsed < minMs)
  const cpu = process.cpuUsage(cpuBefore)
  return {
    microseconds: (elapsed * 1000) / (repeats * operations),
    cpuMicroseconds: (cpu.user + cpu.system) / (repeats * operations),
    repeats,
  }
}
