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

/**
 * Dollars shown finely enough that a change of `finest` shows: a budget left of $0.499978
 * beside spends of $0.000022 reads `$0.499978`, not `$0.5000`, so it moves as the run spends.
 *
 * @example
 * formatUsdBeside(0.499978, 0.000022) // '$0.499978'
 */
export function formatUsdBeside(value: number | undefined, finest: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '—'
  if (finest === undefined || !(finest > 0) || value === 0) return formatUsd(value)
  const decimals = Math.min(12, Math.max(4, 1 - Math.floor(Math.log10(finest))))
  return `$${value.toFixed(decimals)}`
}
