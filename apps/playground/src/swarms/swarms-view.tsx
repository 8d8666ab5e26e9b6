import { useAdvancedAgentStore, useAgentStore, useSwarmRun } from '@baton/surface'
import { useState } from 'react'
import { countOf } from '../ui/count-of'
import { describeError } from '../ui/describe-error'
import { useHashParam } from '../ui/use-hash-param'
import { DeleteSwarmButton } from './delete-swarm-button'
import { SwarmForm } from './swarm-form'
import { SwarmRoundsView } from './swarm-rounds-view'

function SwarmRunView({ runId, threshold }: { runId: string; threshold: number }) {
  const run = useSwarmRun(runId)
  if (!run)
    return <p className="muted">Run {runId} was started elsewhere; start one here to follow it.</p>
  return (
    <div className="stack" data-swarm-run={runId} data-status={run.status}>
      <h2 style={{ fontSize: '1.1rem', margin: 0 }}>
        {run.swarmId}: “{run.task}” <span className="pill">{run.status}</span>
      </h2>
      <SwarmRoundsView events={run.events} threshold={threshold} />
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
  const agents = useAgentStore((state) => state.agents)
  const startSwarmRun = useAdvancedAgentStore((state) => state.startSwarmRun)
  const [swarmId, setSwarmId] = useState<string>()
  const [task, setTask] = useState('Which release plan should we pick?')
  const [runId, chooseRun] = useHashParam('run')
  const [error, setError] = useState<string>()
  // The swarm being edited (its form replaces the create form), and what the last change did.
  const [editing, setEditing] = useState<string>()
  const [notice, setNotice] = useState<string>()
  const chosen = swarms.find((swarm) => swarm.id === swarmId) ?? swarms[0]
  const editingChosen = chosen !== undefined && editing === chosen.id
  const runSwarm = useSwarmRun(runId)
  const threshold =
    swarms.find((swarm) => swarm.id === runSwarm?.swarmId)?.consensusThreshold ??
    chosen?.consensusThreshold ??
    0.5

  const start = async () => {
    if (!chosen) return
    setError(undefined)
    setNotice(undefined)
    try {
      chooseRun(await startSwarmRun(chosen.id, task))
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
          onChange={(event) => {
            setSwarmId(event.target.value)
            setEditing(undefined)
          }}
          style={{ width: 'auto' }}
        >
          {swarms.map((swarm) => (
            <option key={swarm.id} value={swarm.id}>
              {swarm.name} ({swarm.strategy}, {countOf(swarm.agents.length, 'member')})
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
        {chosen ? (
          <>
            <button
              type="button"
              className="ghost"
              aria-pressed={editingChosen}
              onClick={() => {
                setNotice(undefined)
                setEditing(editingChosen ? undefined : chosen.id)
              }}
            >
              Edit
            </button>
            <DeleteSwarmButton
              key={chosen.id}
              swarm={chosen}
              onDeleted={(deletedId) => {
                setEditing(undefined)
                setSwarmId(undefined)
                setNotice(`Deleted the swarm "${chosen.name}" (${deletedId}); its runs stay.`)
              }}
            />
          </>
        ) : null}
      </div>
      {notice ? (
        <p className="muted" role="status">
          {notice}
        </p>
      ) : null}
      {chosen?.description ? <p>{chosen.description}</p> : null}
      {chosen ? (
        <p className="muted">
          Members:{' '}
          {chosen.agents
            .map((member) => `${member.agentId} (${member.role}, weight ${member.weight})`)
            .join(', ')}
          ; threshold {chosen.consensusThreshold}, at most {chosen.maxRounds} rounds.
        </p>
      ) : null}
      {chosen && editingChosen ? (
        <SwarmForm
          key={chosen.id}
          agents={agents}
          swarm={chosen}
          onSaved={(_savedId, savedName) => {
            setEditing(undefined)
            setNotice(`Saved the swarm "${savedName}".`)
          }}
          onCancel={() => setEditing(undefined)}
        />
      ) : null}
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
      {runId ? <SwarmRunView runId={runId} threshold={threshold} /> : null}
      {editingChosen ? null : (
        <SwarmForm
          agents={agents}
          onSaved={(createdId) => {
            setNotice(undefined)
            setSwarmId(createdId)
          }}
        />
      )}
    </section>
  )
}
