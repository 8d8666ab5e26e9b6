import { timeRuns } from '../../measure'
import { formatNumber } from '../../report/format-number'
import type { Figure, Size } from '../types'
import { fanoutWidth } from './fanout-case'

/** What one fan-out did: how many of its pieces finished, and what to remove off the clock. */
export type FanOut = { done: number; cleanup?: () => Promise<void> }

/**
 * The fan-out at full width, warm (see `timeRuns`): the mean of the timed runs, and the first
 * run's time, after a warm-up at a tenth of the width, with the resident set it added.
 * Removing a run's directories is not part of its fan-out; it happens off the clock.
 *
 * @example
 * const figure = await measureFanOut(size, async (width) => ({ done: (await Promise.all(work(width))).length }))
 */
export async function measureFanOut(
  size: Size,
  fanOut: (width: number) => Promise<FanOut>,
): Promise<Figure> {
  const width = fanoutWidth(size)
  const { ms, cpuMs, firstMs, peakMiB, runs } = await timeRuns({
    warmUp: async () => (await fanOut(Math.max(1, width / 10))).cleanup?.(),
    run: async () => {
      const outcome = await fanOut(width)
      if (outcome.done !== width) {
        await outcome.cleanup?.()
        throw new Error(`${outcome.done} of ${width} finished`)
      }
      return outcome
    },
    cleanup: (outcome) => outcome.cleanup?.(),
  })
  return {
    value: ms,
    text: `${formatNumber(ms)} (CPU ${formatNumber(cpuMs)}; first run ${formatNumber(firstMs)})`,
    memoryMiB: peakMiB,
    details: { cpuMilliseconds: cpuMs, firstMilliseconds: firstMs, runs },
  }
}
