import { useAgentCommunicationStore, useAgentStore } from '@baton/surface'
import { useEffect, useState } from 'react'
import { useStore } from 'zustand'
import { serverApi } from '../api/client'
import { stores } from '../api/stores'
import { EscalationActions } from '../ui/escalation-actions'
import { hopLimit } from './hop-limit'
import { StartConversationForm } from './start-conversation-form'

/** The server's bus: conversations by correlation with their hops, and open escalations. */
export function BusView() {
  const correlations = useAgentCommunicationStore((state) => state.correlations)
  const escalations = useAgentCommunicationStore((state) => state.escalations)
  const maxHops = useStore(stores.comm, (state) => state.maxHops)
  const open = escalations.filter((escalation) => escalation.status === 'open')
  const conversations = [...correlations.values()].sort((left, right) =>
    (right.messages.at(-1)?.createdAt ?? '').localeCompare(left.messages.at(-1)?.createdAt ?? ''),
  )
  const agents = useAgentStore((state) => state.agents)
  // Whether the stored conversations were read: until then, no conversation is not "none".
  const [read, setRead] = useState(false)
  // The stream brings new messages only: the stored conversations are read once on opening.
  useEffect(() => {
    void serverApi
      .listConversations()
      .then(
        (listed) =>
          Promise.all(
            listed.map((row) => stores.comm.getState().loadConversation(row.correlationId)),
          ),
        () => undefined,
      )
      .finally(() => setRead(true))
  }, [])
  return (
    <section className="stack" aria-labelledby="bus-title">
      <h1 id="bus-title">Bus</h1>
      <p className="muted">
        Every delegated message carries a correlation id and a hop count. When a chain goes past the
        hop limit (two agents passing work back and forth), the loop guard holds it and asks a
        person: allow a few more hops, or stop it.
      </p>
      <StartConversationForm agents={agents} />
      <h2 style={{ fontSize: '1.1rem' }}>Open escalations ({open.length})</h2>
      {open.length === 0 ? <p className="muted">None: no chain is waiting for a person.</p> : null}
      <div className="stack">
        {open.map((escalation) => (
          <EscalationActions key={escalation.id} escalation={escalation} />
        ))}
      </div>
      <h2 style={{ fontSize: '1.1rem' }}>Conversations ({conversations.length})</h2>
      {read && conversations.length === 0 ? (
        <p className="muted" data-conversations-empty>
          None yet: send a message above, or @mention an agent in Chat. Each conversation is listed
          here with who took part and its hops.
        </p>
      ) : null}
      <div
        className="panel"
        style={{ overflowX: 'auto', display: conversations.length === 0 ? 'none' : undefined }}
      >
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
              // Who took part, each once, in the order they joined (a loop names its two parties
              // once; a sender who joined by writing is named where it first wrote).
              const path = [
                ...new Set(
                  view.messages.flatMap((message) => [message.from.agentId, message.to.agentId]),
                ),
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
                  <td data-path>{path.join(' → ')}</td>
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
