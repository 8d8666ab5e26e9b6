import { useAgentStore } from '@baton/surface'
import { useCallback, useState } from 'react'
import { serverApi } from '../api/client'
import { useServerData } from '../api/use-server-data'
import { RunReceiptView } from '../receipts/run-receipt-view'
import { useRunReceipt } from '../receipts/use-run-receipt'
import { describeError } from '../ui/describe-error'
import { formatUsd } from '../ui/format-usd'
import { DelegationTree } from './delegation-tree'
import { StepOutput } from './step-output'
import { RunTraceLink } from './run-trace-link'
import { useRunEvents } from './use-run-events'

const finished = new Set(['done', 'stopped', 'failed', 'cancelled', 'interrupted'])

function describeEvent(event: { type: string; [key: string]: unknown }): string {
  const where = typeof event.path === 'string' ? ` ${event.path}` : ''
  const op = typeof event.op === 'string' ? ` (${event.op})` : ''
  const cost = (event.usage as { costUsd?: number } | undefined)?.costUsd
  const spent = cost === undefined ? '' : ` · ${formatUsd(cost)}`
  // How long the step's model took to start writing (streamed steps only).
  const firstText =
    typeof event.firstTextMs === 'number' ? ` · first text after ${event.firstTextMs} ms` : ''
  const detail =
    typeof event.message === 'string'
      ? ` · ${event.message}`
      : typeof event.question === 'string'
        ? ` · asks: ${event.question}`
        : typeof event.status === 'string'
          ? ` · ${event.status}`
          : ''
  return `${event.type}${where}${op}${spent}${firstText}${detail}`
}

/** One run: status, output, the live events, the delegation tree, questions, cancel/resume. */
export function RunDetailView({ runId }: { runId: string }) {
  const { events, texts, status: streamStatus } = useRunEvents(runId)
  const detail = useServerData(() => serverApi.getRun(runId), [runId, events.length])
  const [answer, setAnswer] = useState('')
  const [error, setError] = useState<string>()
  const run = detail.data
  const status = run?.status ?? 'starting'
  const question =
    run?.question ??
    (events.findLast((event) => event.type === 'run-pause')?.question as string | undefined)
  const paused = status === 'paused'
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
          Run <code>{runId}</code> <span className="pill">{status}</span>
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
            void act(() => serverApi.answerRun(runId, answer)).then(() => setAnswer(''))
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
      <DelegationTree root={run?.tree} plan={run?.plan} nameOf={nameOf} />
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
