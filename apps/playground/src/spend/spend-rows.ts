import type { SpendRow } from '../api/client'

const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0)

/**
 * Spend rows from the server's answer, whatever it calls the key (`wallet`, `runId`, `key`),
 * largest first, with the totals.
 *
 * @example
 * const { rows, total } = spendRows(await serverApi.spend('wallet'))
 */
export function spendRows(list: readonly Record<string, unknown>[]): {
  rows: SpendRow[]
  total: SpendRow
} {
  const rows = list
    .map((item) => {
      const usage = (item.usage ?? item) as Record<string, unknown>
      return {
        key: String(item.key ?? item.wallet ?? item.runId ?? item.run ?? item.id ?? 'unknown'),
        calls: number(usage.calls),
        tokens: number(usage.tokens),
        costUsd: number(usage.costUsd ?? usage.cost),
      }
    })
    .sort((left, right) => right.costUsd - left.costUsd)
  const total = rows.reduce(
    (sum, row) => ({
      key: 'total',
      calls: sum.calls + row.calls,
      tokens: sum.tokens + row.tokens,
      costUsd: sum.costUsd + row.costUsd,
    }),
    { key: 'total', calls: 0, tokens: 0, costUsd: 0 },
  )
  return { rows, total }
}
