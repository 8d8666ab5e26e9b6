import { useAgentStore } from '@baton/surface'
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import { serverApi } from '../api/client'
import { useServerData } from '../api/use-server-data'
import { formatUsd as usd } from '../ui/format-usd'
import { spendRows } from './spend-rows'

function SpendSection({ by, title }: { by: 'wallet' | 'run'; title: string }) {
  const agents = useAgentStore((state) => state.agents)
  const spend = useServerData(() => serverApi.spend(by), [by], { intervalMs: 4000 })
  const { rows, total } = spendRows(spend.data ?? [])
  const label = (key: string) =>
    by === 'wallet'
      ? (agents.find((agent) => agent.wallet.toLowerCase() === key.toLowerCase())?.name ??
        `${key.slice(0, 8)}…`)
      : key.slice(0, 10)
  const data = rows.slice(0, 12).map((row) => ({ name: label(row.key), costUsd: row.costUsd }))
  return (
    <section className="panel stack" aria-label={title} data-spend={by}>
      <h2 style={{ margin: 0, fontSize: '1.1rem' }}>{title}</h2>
      {spend.error ? <p className="error-text">{spend.error}</p> : null}
      <div className="split">
        <div className="chart">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={data} margin={{ top: 8, right: 8, bottom: 8, left: 8 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" />
              <XAxis dataKey="name" tick={{ fill: 'var(--muted)', fontSize: 11 }} />
              <YAxis
                tick={{ fill: 'var(--muted)', fontSize: 11 }}
                tickFormatter={(value: number) => usd(value)}
              />
              <Tooltip
                formatter={(value) => usd(Number(value))}
                contentStyle={{ background: 'var(--panel)', border: '1px solid var(--border)' }}
              />
              <Bar dataKey="costUsd" name="cost" fill="var(--accent)" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
        <div style={{ overflowX: 'auto' }}>
          <table>
            <thead>
              <tr>
                <th>{by === 'wallet' ? 'Wallet' : 'Run'}</th>
                <th className="number">Calls</th>
                <th className="number">Tokens</th>
                <th className="number">Cost</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.key}>
                  <td title={row.key}>{label(row.key)}</td>
                  <td className="number">{row.calls}</td>
                  <td className="number">{row.tokens}</td>
                  <td className="number">{usd(row.costUsd)}</td>
                </tr>
              ))}
              <tr>
                <th>Total</th>
                <th className="number">{total.calls}</th>
                <th className="number">{total.tokens}</th>
                <th className="number">{usd(total.costUsd)}</th>
              </tr>
            </tbody>
          </table>
        </div>
      </div>
    </section>
  )
}

/** What was spent, attributed to the wallet that spent it and to the run it was for. */
export function SpendView() {
  return (
    <section className="stack" aria-labelledby="spend-title">
      <h1 id="spend-title">Spend</h1>
      <p className="muted">
        Every model call is charged to the budget of the step that made it and attributed to the
        agent's wallet, so cost stays with whoever did the work.
      </p>
      <SpendSection by="wallet" title="By wallet" />
      <SpendSection by="run" title="By run" />
    </section>
  )
}
