import { withPeakRss } from './peak-rss'
import { timing } from './time-per-op'

/** What `timeRuns` measured of a piece of work done as a whole (a fan-out of N, say). */
export type TimedRuns<T> = {
  /** Mean wall time of a warm run, in milliseconds. */
  ms: number
  /** Mean CPU time of a warm run (the process's, all threads), in milliseconds. */
  cpuMs: number
  /** How many warm runs were timed. */
  runs: number
  /** The first run's wall time: the work on a process that has not optimised its path yet. */
  firstMs: number
  /** How far the first run raised the resident set (see `withPeakRss`). */
  peakMiB: number
  /** The first run's result. */
  first: T
}

/**
 * Measures `run` the way `timePerOperation` measures a loop, for work that is one operation:
 * once after `warmUp` (the first run, whose time is `firstMs` and whose peak resident set is
 * `peakMiB`), then again and again for `timing.warmUpMs` untimed, then at least `minRuns` times
 * (default 30) and `timing.minMs` timed, each run apart, `cleanup` of its result outside the
 * clock. One run alone measured V8's tiers as much as the work (the same fan-out took 79 ms
 * first and 16–31 ms warm); memory stays the first run's, as it was. A warm run's time depends
 * on where it falls in the collector's cycle (one fan-out of 1000 sub-agents: 10–13 ms with no
 * scavenge in it, 35 ms with one), so the mean is taken over runs enough to span several
 * cycles: with 5, the same row read 25–45 ms from one process to the next; with 30, 31–34.
 *
 * @example
 * const { ms, firstMs, peakMiB } = await timeRuns({ warmUp: () => fanOut(100), run: () => fanOut(1000) })
 */
export async function timeRuns<T>(options: {
  warmUp?: () => Promise<unknown>
  run: () => Promise<T>
  cleanup?: (result: T) => Promise<void> | void
  minRuns?: number
}): Promise<TimedRuns<T>> {
  const { run, cleanup } = options
  const minRuns = options.minRuns ?? (timing.warmUpMs > 0 ? 30 : 1)
  await options.warmUp?.()
  let firstMs = 0
  const { result: first, peakMiB } = await withPeakRss(async () => {
    const started = performance.now()
    const result = await run()
    firstMs = performance.now() - started
    return result
  })
  await cleanup?.(first)
  const warmStarted = performance.now()
  // No forced collection here, as in `timePerOperation`: it would undo the warm-up.
  while (performance.now() - warmStarted < timing.warmUpMs) await cleanup?.(await run())
  let wallMs = 0
  let cpuMicroseconds = 0
  let runs = 0
  while (runs < minRuns || wallMs < timing.minMs) {
    const cpuBefore = process.cpuUsage()
    const started = performance.now()
    const result = await run()
    wallMs += performance.now() - started
    const cpu = process.cpuUsage(cpuBefore)
    cpuMicroseconds += cpu.user + cpu.system
    runs += 1
    await cleanup?.(result)
  }
  return { ms: wallMs / runs, cpuMs: cpuMicroseconds / 1000 / runs, runs, firstMs, peakMiB, first }
}
