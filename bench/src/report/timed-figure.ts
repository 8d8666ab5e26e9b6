import type { Figure } from '../cases/types'
import { formatNumber } from './format-number'

/**
 * A warm loop's figure (see `timePerOperation`): its time per operation, with its CPU and the
 * first call's time beside (`label`, "first" unless told), the cold figure a process pays
 * before V8 has optimised the path.
 *
 * @example
 * timedFigure(await timePerOperation({ operations: 1000, work }), 'first chain')
 * // { value: 5.29, text: '5.29 (CPU 5.55; first chain 39.6)', details: { ... } }
 */
export function timedFigure(
  timed: { microseconds: number; cpuMicroseconds: number; firstMicroseconds?: number },
  label = 'first',
): Figure {
  const { microseconds, cpuMicroseconds, firstMicroseconds } = timed
  const first =
    firstMicroseconds === undefined ? '' : `; ${label} ${formatNumber(firstMicroseconds)}`
  return {
    value: microseconds,
    text: `${formatNumber(microseconds)} (CPU ${formatNumber(cpuMicroseconds)}${first})`,
    details: {
      cpuMicroseconds,
      ...(firstMicroseconds === undefined ? {} : { firstMicroseconds }),
    },
  }
}
