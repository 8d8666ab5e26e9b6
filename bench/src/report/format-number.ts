/**
 * Rounds for a table cell: whole numbers from 100 up (with thousands grouped), three
 * significant digits below.
 *
 * @example
 * formatNumber(45612.4) // '45 612'
 * formatNumber(0.18234) // '0.182'
 */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value)
  const size = Math.abs(value)
  if (size >= 100) return Math.round(value).toLocaleString('en-US').replace(/,/g, ' ')
  if (size === 0) return '0'
  return Number(value.toPrecision(3)).toString()
}
