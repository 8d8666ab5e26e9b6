import type { Escalation } from '@baton/comm'
import { useAgentCommunicationStore } from '@baton/surface'
import { useState } from 'react'
import { describeError } from './describe-error'
import { loopParties } from './loop-parties'

/** An open escalation: who went round, how many hops, and Allow 2 more hops / Stop. */
export function EscalationActions({ escalation }: { escalation: Escalation }) {
  const { allow, stop } = useAgentCommunicationStore((state) => state)
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  const act = async (action: () => Promise<unknown>) => {
    setBusy(true)
    setError(undefined)
    try {
      await action()
    } catch (failure) {
      setError(describeError(failure))
    } finally {
      setBusy(false)
    }
  }
  return (
    <fieldset
      className="panel"
      aria-label={`Escalation ${escalation.id}`}
      data-escalation={escalation.id}
    >
      <p style={{ margin: 0 }}>
        <span className="pill warn">held by the loop guard</span> after {escalation.hops} hops
        between{' '}
        <span data-loop-parties title={escalation.path.join(' → ')}>
          {loopParties(escalation.path)}
        </span>
      </p>
      <p className="muted" style={{ margin: '0.3rem 0' }}>
        Held message to <strong>{escalation.lastMessage.to.agentId}</strong>: “
        {escalation.lastMessage.content.slice(0, 160)}”
      </p>
      {escalation.status === 'open' ? (
        <div className="row">
          <button type="button" disabled={busy} onClick={() => act(() => allow(escalation.id, 2))}>
            Allow 2 more hops
          </button>
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => act(() => stop(escalation.id, 'Stopped from the playground'))}
          >
            Stop
          </button>
        </div>
      ) : (
        <p className="pill">{escalation.status}</p>
      )}
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  )
}
