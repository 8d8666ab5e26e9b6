const MIB = 1024 * 1024

/**
 * Runs `work` and reports how far the resident set grew above where it stood at the start:
 * `process.memoryUsage().rss` sampled every millisecond, and the kernel's high-water mark
 * (`maxRSS`), which also catches peaks between samples when the work never yields to timers.
 *
 * @example
 * const { result, peakMiB } = await withPeakRss(() => fanOut(1000))
 */
export async function withPeakRss<T>(
  work: () => Promise<T>,
): Promise<{ result: T; peakMiB: number }> {
  globalThis.gc?.()
  const start = process.memoryUsage().rss
  const highWaterBefore = process.resourceUsage().maxRSS * 1024
  let peak = start
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 1)
  try {
    const result = await work()
    peak = Math.max(peak, process.memoryUsage().rss)
    const highWater = process.resourceUsage().maxRSS * 1024
    // The high-water mark only tells about this work if the work raised it.
    if (highWater > highWaterBefore) peak = Math.max(peak, highWater)
    return { result, peakMiB: Math.max(0, peak - start) / MIB }
  } finally {
    clearInterval(timer)
  }
}
