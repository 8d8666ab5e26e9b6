/**
 * A sum of prices rounded to 1e-12 USD, so the books a run reports carry no float noise such
 * as 0.00019950000000000002 (receipts, step usage and swarm books all round the same way).
 *
 * @example
 * roundUsd(0.0001 + 0.0000995) // 0.0001995
 */
export function roundUsd(value: number): number {
  return Math.round(value * 1e12) / 1e12
}
