import { useAgentStore } from '@baton/surface'
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import { type RunSummary, serverApi } from '../api/client'
import { useServerData } from '../api/use-server-data'
import { formatUsdBeside, formatUsd as usd } from '../ui/format-usd'
import { axisTicks } from './axis-ticks'
import { spendRows } from './spend-rows'

// A run by its plan's name (or its swarm's), and when it started: several runs of one plan
// are told apart by the time.
function runName(run: RunSummary | undefined, id: string): string {
  if (!run) return id.slice(0, 8)
  const name =
    run.name ?? run.planName ?? (run.swarmId ? `swarm ${String(run.swarmId)}` : undefined)
  const at = run.createdAt ? new Date(run.createdAt).toLocaleTimeString() : ''
  return `${name ?? id.slice(0, 8)}${at ? ` · ${at}` : ''}`
}

// On the axis, a bar's name without its time, cut to fit under its bar (the table has it whole).
function axisName(name: string): string {
  const short = name.split(' · ')[0] ?? name
  return short.length > 16 ? `${short.slice(0, 15)}…` : short
}

function SpendSection({ by, title }: { by: 'wallet' | 'run'; title: string }) {
  const agents = useAgentStore((state) => state.agents)
  const spend = useServerData(() => serverApi.spend(by), [by], { intervalMs: 4000 })
  const runs = useServerData(
    () => (by === 'run' ? serverApi.listRuns() : Promise.resolve([])),
    [by],
    { intervalMs: 4000 },
  )
  const { rows, total } = spendRows(spend.data ?? [])
  const label = (key: string) =>
    by === 'wallet'
      ? (agents.find((agent) => agent.wallet.toLowerCase() === key.toLowerCase())?.name ??
        `${key.slice(0, 8)}…`)
      : runName(
          runs.data?.find((run) => run.id === key),
          key,
        )
  const data = rows.slice(0, 12).map((row) => ({ name: label(row.key), costUsd: row.costUsd }))
  const axis = axisTicks(Math.max(0, ...data.map((row) => row.costUsd)))
  // Every cost in the table to the digit of the smallest, so $0.000700 and $0.000026 read alike.
  const costs = rows.map((row) => row.costUsd).filter((cost) => cost > 0)
  const finest = costs.length > 0 ? Math.min(...costs) : undefined
  const cost = (value: number) => formatUsdBeside(value, finest)
  if (!spend.loading && !spend.error && rows.length === 0) {
    return (
      <section className="panel stack" aria-label={title} data-spend={by}>
        <h2 style={{ margin: 0, fontSize: '1.1rem' }}>{title}</h2>
        <p className="muted" data-spend-empty>
          Nothing spent yet. Run a plan or a swarm, or @mention an agent in Chat: each model call it
          makes shows here, by the wallet that made it and the run it was for.
        </p>
      </section>
    )
  }
  return (
    <section className="panel stack" aria-label={title} data-spend={by}>
      <h2 style={{ margin: 0, fontSize: '1.1rem' }}>{title}</h2>
      {spend.error ? <p className="error-text">{spend.error}</p> : null}
      <div className="split">
        <div className="chart">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={data} margin={{ top: 8, right: 8, bottom: 8, left: 8 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" />
              {/* Every bar named (none dropped for want of room), tilted so long names fit. */}
              <XAxis
                dataKey="name"
                tick={{ fill: 'var(--muted)', fontSize: 11 }}
                interval={0}
                angle={-20}
                textAnchor="end"
                height={48}
                tickFormatter={axisName}
              />
              <YAxis
                tick={{ fill: 'var(--muted)', fontSize: 11 }}
                ticks={axis.ticks}
                domain={[0, axis.ticks.at(-1) ?? 'auto']}
                interval={0}
                tickFormatter={axis.format}
                width={72}
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
                  <td title={row.key}>
                    {by === 'run' ? (
                      <a href={`#/runs?run=${encodeURIComponent(row.key)}`} data-run-link={row.key}>
                        {label(row.key)}
                      </a>
                    ) : (
                      label(row.key)
                    )}
                  </td>
                  <td className="number">{row.calls}</td>
                  <td className="number">{row.tokens}</td>
                  <td className="number" data-cost>
                    {cost(row.costUsd)}
                  </td>
                </tr>
              ))}
              <tr>
                <th>Total</th>
                <th className="number">{total.calls}</th>
                <th className="number">{total.tokens}</th>
                <th className="number" data-cost>
                  {cost(total.costUsd)}
                </th>
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
