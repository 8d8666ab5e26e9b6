import { useSwarmRun } from '@baton/surface'
import { countOf } from '../ui/count-of'

/** A swarm run started from the chat: its status, round and result, live. */
export function SwarmRunSummary({ runId }: { runId: string }) {
  const run = useSwarmRun(runId)
  if (!run) return <p className="muted">Waiting for run {runId}…</p>
  const votes = run.events.filter(
    (event) => event.type === 'swarm-message' && event.kind === 'vote',
  )
  return (
    <div className="bubble" data-run-status={run.status}>
      <div className="muted" style={{ fontSize: '0.8rem' }}>
        swarm {run.swarmId} · round {run.round}
        {votes.length > 0 ? ` · ${countOf(votes.length, 'vote')}` : ''} · {run.status}{' '}
        <a href={`#/swarms?run=${encodeURIComponent(runId)}`}>see the rounds</a>
      </div>
      {run.output ? <div style={{ whiteSpace: 'pre-wrap' }}>{run.output}</div> : null}
      {run.error ? <div className="error-text">{run.error.message}</div> : null}
    </div>
  )
}
