/**
 * Money is kept as whole units of 1e-15 USD in a bigint, so books add up exactly however many
 * charges they take and however large the sums grow (floats drift: 1000 × 999.999 is not
 * 999999 in floating point). A number is read as the decimal it prints as, so `0.1` is one
 * tenth exactly, and digits past the 15th decimal are rounded half up.
 */
export const USD_DECIMALS = 15
const SCALE = 10n ** BigInt(USD_DECIMALS)

const MAX_EXACT_UNITS = BigInt(Number.MAX_SAFE_INTEGER)

/** The largest amount of money a limit or a charge may name: a trillion dollars. */
export const MAX_USD = 1e12

/**
 * `value` USD in units of 1e-15 USD (`value` finite and ≥ 0).
 *
 * @example
 * toUsdUnits(0.1) // 100000000000000n
 */
export function toUsdUnits(value: number): bigint {
  if (value === 0) return 0n
  // Under a dollar the product is within a fraction of a unit of the decimal, so rounding it
  // gives the same units as reading the decimal, at a fraction of the cost.
  if (value < 1) return BigInt(Math.round(value * 1e15))
  // The shortest decimal that reads back as `value`: the number the caller wrote.
  const [mantissa = '0', exponent = '0'] = value.toExponential().split('e')
  const digits = mantissa.replace('.', '')
  const shift = Number(exponent) - (digits.length - 1) + USD_DECIMALS
  const whole = BigInt(digits)
  if (shift >= 0) return whole * 10n ** BigInt(shift)
  const divisor = 10n ** BigInt(-shift)
  const quotient = whole / divisor
  return (whole % divisor) * 2n >= divisor ? quotient + 1n : quotient
}

/**
 * Units of 1e-15 USD as the nearest number of USD.
 *
 * @example
 * fromUsdUnits(21500000000n) // 0.0000215
 */
export function fromUsdUnits(units: bigint): number {
  // Both exact, so the (correctly rounded) division is the nearest number to the decimal.
  if (units >= 0n && units <= MAX_EXACT_UNITS) return Number(units) / 1e15
  const sign = units < 0n ? '-' : ''
  const magnitude = units < 0n ? -units : units
  const fraction = (magnitude % SCALE).toString().padStart(USD_DECIMALS, '0')
  return Number(`${sign}${magnitude / SCALE}.${fraction}`)
}

/**
 * `value` USD rounded to the precision budgets keep (1e-15 USD), without float noise.
 *
 * @example
 * roundUsd(0.000021499999999999997) // 0.0000215
 */
export function roundUsd(value: number): number {
  if (!Number.isFinite(value)) return value
  // Under a dollar both conversions are exact on numbers (see toUsdUnits and fromUsdUnits):
  // the same result without making a bigint, which a step's usage pays for on every call.
  if (value > 0 && value < 1) return Math.round(value * 1e15) / 1e15
  return value < 0 ? -fromUsdUnits(toUsdUnits(-value)) : fromUsdUnits(toUsdUnits(value))
}

/**
 * The exact sum of amounts of USD, as budgets book it.
 *
 * @example
 * sumUsd([0.1, 0.2]) // 0.3
 */
export function sumUsd(values: Iterable<number>): number {
  let units = 0n
  for (const value of values) units += toUsdUnits(value)
  return fromUsdUnits(units)
}
