import { useAgentCommunicationStore } from '@baton/surface'
import { useStore } from 'zustand'
import { stores } from '../api/stores'
import { EscalationActions } from '../ui/escalation-actions'
import { hopLimit } from './hop-limit'

/** The server's bus: conversations by correlation with their hops, and open escalations. */
export function BusView() {
  const correlations = useAgentCommunicationStore((state) => state.correlations)
  const escalations = useAgentCommunicationStore((state) => state.escalations)
  const maxHops = useStore(stores.comm, (state) => state.maxHops)
  const open = escalations.filter((escalation) => escalation.status === 'open')
  const conversations = [...correlations.values()].reverse()
  return (
    <section className="stack" aria-labelledby="bus-title">
      <h1 id="bus-title">Bus</h1>
      <p className="muted">
        Every delegated message carries a correlation id and a hop count. When a chain goes past the
        hop limit (two agents passing work back and forth), the loop guard holds it and asks a
        person: allow a few more hops, or stop it.
      </p>
      <h2 style={{ fontSize: '1.1rem' }}>Open escalations ({open.length})</h2>
      {open.length === 0 ? <p className="muted">None: no chain is waiting for a person.</p> : null}
      <div className="stack">
        {open.map((escalation) => (
          <EscalationActions key={escalation.id} escalation={escalation} />
        ))}
      </div>
      <h2 style={{ fontSize: '1.1rem' }}>Conversations ({conversations.length})</h2>
      <div className="panel" style={{ overflowX: 'auto' }}>
        <table>
          <thead>
            <tr>
              <th>Correlation</th>
              <th>Path</th>
              <th className="number">Hops / limit</th>
              <th>Last message</th>
            </tr>
          </thead>
          <tbody>
            {conversations.map((view) => {
              const last = view.messages[view.messages.length - 1]
              const path = [
                view.messages[0]?.from.agentId,
                ...view.messages.map((message) => message.to.agentId),
              ]
              const limit = hopLimit(view.correlationId, escalations, maxHops)
              const resolved = escalations.filter(
                (escalation) =>
                  escalation.correlationId === view.correlationId && escalation.status !== 'open',
              )
              return (
                <tr key={view.correlationId} data-correlation={view.correlationId}>
                  <td>
                    <code>{view.correlationId.slice(0, 14)}</code>
                  </td>
                  <td>{path.filter(Boolean).join(' → ')}</td>
                  <td className="number">
                    {view.hops}
                    {limit === undefined ? '' : ` / ${limit}`}
                    {resolved.map((escalation) => (
                      <span key={escalation.id} className="pill" style={{ marginLeft: 4 }}>
                        {escalation.status}
                      </span>
                    ))}
                  </td>
                  <td>{last?.content.slice(0, 120)}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
    </section>
  )
}
