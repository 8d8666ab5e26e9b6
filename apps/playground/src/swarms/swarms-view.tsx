import { useAdvancedAgentStore, useSwarmRun } from '@baton/surface'
import { useState } from 'react'
import { describeError } from '../ui/describe-error'
import { groupRounds } from './swarm-rounds'

function runFromHash(): string | undefined {
  return new URLSearchParams(window.location.hash.split('?')[1]).get('run') ?? undefined
}

function SwarmRunView({ runId, threshold }: { runId: string; threshold: number }) {
  const run = useSwarmRun(runId)
  if (!run)
    return <p className="muted">Run {runId} was started elsewhere; start one here to follow it.</p>
  const rounds = groupRounds(run.events)
  return (
    <div className="stack" data-swarm-run={runId} data-status={run.status}>
      <h2 style={{ fontSize: '1.1rem', margin: 0 }}>
        {run.swarmId}: “{run.task}” <span className="pill">{run.status}</span>
      </h2>
      {rounds.map((round) => {
        const tally = round.tally
        const leadingShare =
          tally && tally.totalWeight > 0
            ? (tally.weights[tally.leading] ?? 0) / tally.totalWeight
            : undefined
        return (
          <section key={round.round} className="panel" aria-label={`Round ${round.round}`}>
            <h3 style={{ margin: '0 0 0.4rem', fontSize: '1rem' }}>
              Round {round.round}{' '}
              {round.consensusReached === true ? (
                <span className="pill ok">consensus</span>
              ) : round.consensusReached === false ? (
                <span className="pill warn">no consensus</span>
              ) : null}
            </h3>
            <table>
              <thead>
                <tr>
                  <th>Kind</th>
                  <th>Agent</th>
                  <th className="number">Weight</th>
                  <th>Said</th>
                </tr>
              </thead>
              <tbody>
                {round.messages.map((message, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a round's messages only grow, in order
                  <tr key={`${message.agentId}-${index}`} data-kind={message.kind}>
                    <td>
                      <span className="pill">{message.kind}</span>
                    </td>
                    <td>{message.agentId}</td>
                    <td className="number">{message.weight ?? ''}</td>
                    <td>{message.content.slice(0, 240)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {leadingShare !== undefined ? (
              <div style={{ marginTop: '0.5rem' }}>
                <div className="muted" style={{ fontSize: '0.85rem' }}>
                  Weight per proposal:{' '}
                  {tally!.weights.map((weight, index) => `#${index} ${weight}`).join(', ')}
                  {tally!.abstained ? `, abstained ${tally!.abstained}` : ''} (of{' '}
                  {tally!.totalWeight}). Proposal {tally!.leading} leads with{' '}
                  {(leadingShare * 100).toFixed(0)}% of the weight; consensus needs{' '}
                  {(threshold * 100).toFixed(0)}%.
                </div>
                {/* biome-ignore lint/a11y/useSemanticElements: <meter> cannot draw the threshold line */}
                <div
                  className="consensus"
                  role="meter"
                  aria-label="Leading proposal's share of the weight"
                  aria-valuemin={0}
                  aria-valuemax={100}
                  aria-valuenow={Math.round(leadingShare * 100)}
                >
                  <div className="bar" style={{ width: `${leadingShare * 100}%` }} />
                  <div
                    className="threshold"
                    style={{ left: `${threshold * 100}%` }}
                    title="threshold"
                  />
                </div>
              </div>
            ) : null}
          </section>
        )
      })}
      {run.output ? (
        <div>
          <h3 style={{ fontSize: '1rem', margin: '0 0 0.3rem' }}>Result</h3>
          <pre data-testid="swarm-result">{run.output}</pre>
        </div>
      ) : null}
      {run.error ? <p className="error-text">{run.error.message}</p> : null}
    </div>
  )
}

/** Swarms and their runs: rounds, proposals, weighted votes, consensus and the result. */
export function SwarmsView() {
  const swarms = useAdvancedAgentStore((state) => state.swarms)
  const startSwarmRun = useAdvancedAgentStore((state) => state.startSwarmRun)
  const [swarmId, setSwarmId] = useState<string>()
  const [task, setTask] = useState('Which release plan should we pick?')
  const [runId, setRunId] = useState(runFromHash)
  const [error, setError] = useState<string>()
  const chosen = swarms.find((swarm) => swarm.id === swarmId) ?? swarms[0]
  const runSwarm = useSwarmRun(runId)
  const threshold =
    swarms.find((swarm) => swarm.id === runSwarm?.swarmId)?.consensusThreshold ??
    chosen?.consensusThreshold ??
    0.5

  const start = async () => {
    if (!chosen) return
    setError(undefined)
    try {
      setRunId(await startSwarmRun(chosen.id, task))
    } catch (failure) {
      setError(`The swarm run did not start: ${describeError(failure)}`)
    }
  }

  return (
    <section className="stack" aria-labelledby="swarms-title">
      <h1 id="swarms-title">Swarms</h1>
      <p className="muted">
        A swarm is several agents working one task under a strategy. In a democratic swarm each
        member proposes, then everyone votes with their weight; a proposal wins when its share
        passes the threshold.
      </p>
      <div className="panel row">
        <label htmlFor="swarm-pick" style={{ margin: 0 }}>
          Swarm
        </label>
        <select
          id="swarm-pick"
          value={chosen?.id ?? ''}
          onChange={(event) => setSwarmId(event.target.value)}
          style={{ width: 'auto' }}
        >
          {swarms.map((swarm) => (
            <option key={swarm.id} value={swarm.id}>
              {swarm.name} ({swarm.strategy}, {swarm.agents.length} members)
            </option>
          ))}
        </select>
        <label htmlFor="swarm-task" className="sr-only">
          Task
        </label>
        <input
          id="swarm-task"
          value={task}
          onChange={(event) => setTask(event.target.value)}
          style={{ flex: 1, width: 'auto', minWidth: 200 }}
        />
        <button type="button" onClick={start} disabled={!chosen || !task.trim()}>
          Run the swarm
        </button>
      </div>
      {chosen ? (
        <p className="muted">
          Members:{' '}
          {chosen.agents
            .map((member) => `${member.agentId} (${member.role}, weight ${member.weight})`)
            .join(', ')}
          ; threshold {chosen.consensusThreshold}, at most {chosen.maxRounds} rounds.
        </p>
      ) : null}
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
      {runId ? <SwarmRunView runId={runId} threshold={threshold} /> : null}
    </section>
  )
}
