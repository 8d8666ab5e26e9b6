import { timePerOperation } from '../../measure'
import { timedFigure } from '../../report/timed-figure'
import type { Figure, Size } from '../types'
import { chainRun } from './chain-run'
import { hops } from './hops'

/** A MAL plan of `delegate` steps, one model call each. */
export async function subject(size: Size): Promise<Figure> {
  const count = hops(size)
  const run = chainRun(count)
  // The first chain's figure beside it: what a process pays before V8 has optimised the path.
  return timedFigure(await timePerOperation({ operations: count, work: run }), 'first chain')
}
