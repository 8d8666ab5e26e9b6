import { type SwarmRunEvent, useAgentStore } from '@baton/surface'
import { useCallback, useEffect, useState } from 'react'
import { serverApi } from '../api/client'
import { useServerData } from '../api/use-server-data'
import { RunReceiptView } from '../receipts/run-receipt-view'
import { useRunReceipt } from '../receipts/use-run-receipt'
import { SwarmRoundsView } from '../swarms/swarm-rounds-view'
import { describeError } from '../ui/describe-error'
import { formatUsd } from '../ui/format-usd'
import { DelegationTree } from './delegation-tree'
import { RunTraceLink } from './run-trace-link'
import { StepOutput } from './step-output'
import { useRunEvents } from './use-run-events'

const finished = new Set(['done', 'stopped', 'failed', 'cancelled', 'interrupted'])

// A swarm run's plan is the swarm as it ran: its consensus threshold is there.
function swarmThreshold(plan: unknown): number {
  const threshold = (plan as { consensusThreshold?: unknown } | undefined)?.consensusThreshold
  return typeof threshold === 'number' ? threshold : 0.5
}

/** A run's status as a word for a person (`interrupted` → `Interrupted`). */
function statusLabel(status: string): string {
  return status.charAt(0).toUpperCase() + status.slice(1)
}

function describeEvent(event: { type: string; [key: string]: unknown }): string {
  const where = typeof event.path === 'string' ? ` ${event.path}` : ''
  const op = typeof event.op === 'string' ? ` (${event.op})` : ''
  const cost = (event.usage as { costUsd?: number } | undefined)?.costUsd
  const spent = cost === undefined ? '' : ` · ${formatUsd(cost)}`
  // How long the step's model took to start writing (streamed steps only).
  const firstText =
    typeof event.firstTextMs === 'number' ? ` · first text after ${event.firstTextMs} ms` : ''
  const detail =
    event.type === 'step-file' && typeof event.file === 'string'
      ? ` · ${event.file}`
      : typeof event.message === 'string'
        ? ` · ${event.message}`
        : typeof event.reason === 'string'
          ? ` · ${event.reason}`
          : typeof event.question === 'string'
            ? ` · asks: ${event.question}`
            : typeof event.status === 'string'
              ? ` · ${event.status}`
              : ''
  return `${event.type}${where}${op}${spent}${firstText}${detail}`
}

/** One run: status, output, the live events, the delegation tree, questions, cancel/resume. */
export function RunDetailView({
  runId,
  onStatus,
}: {
  runId: string
  /** Told each status the run moves to, so a list of runs can read it again. */
  onStatus?: (status: string) => void
}) {
  const { events, texts, status: streamStatus, revision } = useRunEvents(runId)
  const detail = useServerData(() => serverApi.getRun(runId), [runId, events.length, revision])
  const [answer, setAnswer] = useState('')
  const [error, setError] = useState<string>()
  const run = detail.data
  const status = run?.status ?? 'starting'
  const question =
    run?.question ??
    (events.findLast((event) => event.type === 'run-pause')?.question as string | undefined)
  const paused = status === 'paused'
  useEffect(() => {
    if (run?.status) onStatus?.(run.status)
  }, [run?.status, onStatus])
  const receipt = useRunReceipt(runId, run, finished.has(status) ? status : undefined)
  const agents = useAgentStore((state) => state.agents)
  const nameOf = useCallback(
    (wallet: string) =>
      agents.find((agent) => agent.wallet.toLowerCase() === wallet.toLowerCase())?.name,
    [agents],
  )

  const act = async (action: () => Promise<unknown>) => {
    setError(undefined)
    try {
      await action()
      detail.reload()
    } catch (failure) {
      setError(describeError(failure))
    }
  }

  return (
    <div className="stack" data-run-id={runId} data-run-status={status}>
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <h2 style={{ margin: 0, fontSize: '1.1rem' }}>
          Run <code>{runId}</code>{' '}
          <span className={status === 'interrupted' ? 'pill warn' : 'pill'}>
            {statusLabel(status)}
          </span>
        </h2>
        <div className="row">
          {!finished.has(status) ? (
            <button
              type="button"
              className="danger"
              onClick={() => act(() => serverApi.cancelRun(runId))}
            >
              Cancel
            </button>
          ) : null}
          {/* Only an interrupted run (the server stopped under it) resumes; a paused one takes an answer. */}
          {status === 'interrupted' ? (
            <button
              type="button"
              className="ghost"
              onClick={() => act(() => serverApi.resumeRun(runId))}
            >
              Resume
            </button>
          ) : null}
        </div>
      </div>
      <RunTraceLink traceId={run?.traceId} traceUrl={run?.traceUrl} />
      {detail.error ? <p className="error-text">{detail.error}</p> : null}
      {status === 'interrupted' ? (
        <p className="muted" data-interrupted>
          Interrupted: the server stopped while this run was in flight. Its finished steps are kept;
          Resume continues it from the last one.
        </p>
      ) : null}
      {/* A finished run's receipt, failed runs included: it records what happened either way. */}
      {finished.has(status) ? <RunReceiptView check={receipt} /> : null}
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
      {paused && question ? (
        <form
          className="panel"
          onSubmit={(event) => {
            event.preventDefault()
            void act(() => serverApi.answerRun(runId, answer, question)).then(() => setAnswer(''))
          }}
        >
          <label htmlFor="run-answer" style={{ color: 'inherit' }}>
            The plan asks: <strong>{question}</strong>
          </label>
          <div className="row">
            <input
              id="run-answer"
              value={answer}
              onChange={(event) => setAnswer(event.target.value)}
              style={{ flex: 1, width: 'auto' }}
            />
            <button type="submit">Answer</button>
          </div>
        </form>
      ) : null}
      {run?.kind === 'swarm' ? (
        // A swarm run is rounds of proposals and votes, not a tree of steps.
        <div className="stack" data-swarm-rounds>
          <SwarmRoundsView
            events={events as unknown as SwarmRunEvent[]}
            threshold={swarmThreshold(run.plan)}
          />
        </div>
      ) : (
        <DelegationTree runId={runId} root={run?.tree} plan={run?.plan} nameOf={nameOf} />
      )}
      <StepOutput texts={texts} nameOf={nameOf} />
      {run?.output !== undefined && run.output !== null ? (
        <div>
          <h3 style={{ fontSize: '1rem', margin: '0 0 0.3rem' }}>Output</h3>
          <pre>
            {typeof run.output === 'string' ? run.output : JSON.stringify(run.output, null, 2)}
          </pre>
        </div>
      ) : null}
      {run?.error ? (
        <p className="error-text">
          {run.error.code}: {run.error.message}
        </p>
      ) : null}
      <div>
        <h3 style={{ fontSize: '1rem', margin: '0 0 0.3rem' }}>
          Events{' '}
          {streamStatus?.state === 'retrying' ? (
            <span className="pill bad">stream dropped, retrying</span>
          ) : streamStatus?.state === 'open' ? (
            <span className="pill ok">live</span>
          ) : null}
        </h3>
        <ol className="panel events" aria-label="Run events">
          {events.map((event, index) => (
            <li key={`${event.sequence ?? index}`} data-event-type={event.type}>
              {describeEvent(event)}
            </li>
          ))}
        </ol>
      </div>
    </div>
  )
}
