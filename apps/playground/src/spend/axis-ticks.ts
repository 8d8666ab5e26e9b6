/**
 * Evenly spaced ticks from 0 past `max` (a step of 1, 2 or 5 times a power of ten, at most
 * `count` steps), and a label for each with the same number of decimals, so the axis reads as
 * a scale: `$0.0002, $0.0004, $0.0006`, not `$0.00015, $0.0003, $0.00045`.
 *
 * @example
 * axisTicks(0.00059).labels // ['$0', '$0.0002', '$0.0004', '$0.0006']
 */
export function axisTicks(
  max: number,
  count = 4,
): { ticks: number[]; labels: string[]; format: (value: number) => string } {
  const top = Number.isFinite(max) && max > 0 ? max : 1
  const rough = top / count
  const power = 10 ** Math.floor(Math.log10(rough))
  const step = ([1, 2, 5, 10].find((factor) => factor * power >= rough) ?? 10) * power
  const steps = Math.ceil(top / step - 1e-9)
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9))
  // Multiples of the step rounded to its decimals: no 0.30000000000000004.
  const ticks = Array.from({ length: steps + 1 }, (_, index) =>
    Number((index * step).toFixed(decimals)),
  )
  const format = (value: number) => (value === 0 ? '$0' : `$${value.toFixed(decimals)}`)
  return { ticks, labels: ticks.map(format), format }
}
