/**
 * Dollars for people: four decimals from a hundredth of a cent up, two significant digits
 * below that (offline models cost fractions of a cent), `$0` for nothing.
 *
 * @example
 * formatUsd(0.000024) // '$0.000024'
 */
export function formatUsd(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '—'
  if (value === 0) return '$0'
  if (Math.abs(value) >= 0.0001) return `$${value.toFixed(4)}`
  return `$${Number(value.toPrecision(2)).toFixed(Math.min(12, 1 - Math.floor(Math.log10(Math.abs(value)))))}`
}
