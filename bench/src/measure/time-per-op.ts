/**
 * How long a timing loop runs at least, and how long it is warmed up first, unless told
 * otherwise; the smoke test shortens both.
 */
export const timing = { minMs: 300, warmUpMs: 1000 }

/**
 * Times `work` (which does `operations` operations per call) after warming it up, repeating it
 * until at least `minMs` (default `timing.minMs`) have passed, and returns the time per
 * operation in microseconds; `cpuMicroseconds` beside it is the process's CPU time per operation
 * over the same loop (on a shared machine, wall time also counts the waits for a core).
 *
 * The warm-up calls `work` until `warmUpMs` (default `timing.warmUpMs`) have passed, at least
 * once. One call is not enough: a path's first calls run in V8's interpreter and baseline
 * tiers while its optimising compiler works on a background thread (tens of milliseconds for
 * a large function on this machine), so a loop timed from the second call measured mostly the
 * warm-up. `firstMicroseconds` is the first call's time per operation, the cold figure.
 *
 * @example
 * const { microseconds } = await timePerOperation({ operations: 1000, work: () => chain(1000) })
 */
export async function timePerOperation(options: {
  operations: number
  work: () => Promise<unknown>
  minMs?: number
  warmUp?: boolean
  warmUpMs?: number
}): Promise<{
  microseconds: number
  cpuMicroseconds: number
  repeats: number
  firstMicroseconds?: number
}> {
  const { operations, work, minMs = timing.minMs, warmUp = true } = options
  const warmUpMs = options.warmUpMs ?? timing.warmUpMs
  let firstMicroseconds: number | undefined
  // The heap is settled before the warm-up, not after it: a forced full collection throws away
  // optimised code whose objects it frees, and the timed loop then warmed up again (the MCP
  // row's next thousand calls cost 338 µs of CPU each against 106 before the collection).
  globalThis.gc?.()
  if (warmUp) {
    const warmStarted = performance.now()
    await work()
    firstMicroseconds = ((performance.now() - warmStarted) * 1000) / operations
    while (performance.now() - warmStarted < warmUpMs) await work()
  }
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
    ...(firstMicroseconds === undefined ? {} : { firstMicroseconds }),
  }
}
