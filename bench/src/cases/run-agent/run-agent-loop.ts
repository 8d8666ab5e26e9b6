import { timePerOperation } from '../../measure'
import { formatNumber } from '../../report/format-number'
import type { Figure, Size } from '../types'
import { runCount } from './run-agent-case'

/**
 * The time per call of `call`, awaited one after another, warmed up on a tenth of the calls
 * (the slowest subject takes milliseconds a call), with its CPU time beside it.
 *
 * @example
 * const figure = await timeRunLoop(size, () => runAgent(agent, 'Hi', { budget, models }))
 */
export async function timeRunLoop(size: Size, call: () => Promise<unknown>): Promise<Figure> {
  const count = runCount(size)
  const calls = async (times: number) => {
    for (let index = 0; index < times; index += 1) await call()
  }
  await calls(Math.ceil(count / 10))
  const { microseconds, cpuMicroseconds } = await timePerOperation({
    operations: count,
    warmUp: false,
    work: () => calls(count),
  })
  // CPU time beside it: on a shared machine, wall time also counts the waits for a core.
  return {
    value: microseconds,
    text: `${formatNumber(microseconds)} (CPU ${formatNumber(cpuMicroseconds)})`,
    details: { cpuMicroseconds },
  }
}
