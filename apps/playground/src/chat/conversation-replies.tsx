import { useAgentCommunicationStore, useAgentStore } from '@baton/surface'
import { useStore } from 'zustand'
import { stores } from '../api/stores'
import { EscalationActions } from '../ui/escalation-actions'

/** The server's messages of one conversation as they arrive, and its open escalations. */
export function ConversationReplies({ correlationId }: { correlationId: string }) {
  const view = useAgentCommunicationStore((state) => state.correlations.get(correlationId))
  const escalations = useAgentCommunicationStore((state) => state.escalations)
  const held = escalations.filter(
    (escalation) => escalation.correlationId === correlationId && escalation.status === 'open',
  )
  const replies = (view?.messages ?? []).filter(
    (message) => message.hop > 0 || message.type === 'reply',
  )
  // Replies still being written, as the agent's model streams them.
  const allDrafts = useStore(stores.comm, (state) => state.replyDrafts)
  const drafts = [...allDrafts.values()].filter((draft) => draft.correlationId === correlationId)
  const agents = useAgentStore((state) => state.agents)
  const nameOf = (agentId: string) => agents.find((agent) => agent.id === agentId)?.name ?? agentId
  return (
    <div className="stack" aria-live="polite">
      {replies.map((message) => (
        <div key={message.id} className="bubble" data-message-type={message.type}>
          <div className="muted" style={{ fontSize: '0.8rem' }}>
            {message.from.agentName ?? message.from.agentId} → {message.to.agentId} · hop{' '}
            {message.hop}
            {message.type === 'reply' ? ' · reply' : ''}
          </div>
          <div style={{ whiteSpace: 'pre-wrap' }}>{message.content}</div>
        </div>
      ))}
      {drafts.map((draft) => (
        <div
          key={`draft-${draft.inReplyTo}`}
          className="bubble"
          data-message-type="reply-draft"
          aria-busy="true"
        >
          <div className="muted" style={{ fontSize: '0.8rem' }}>
            {nameOf(draft.from.agentId)} → {draft.to.agentId} · writing…
          </div>
          <div style={{ whiteSpace: 'pre-wrap' }}>{draft.text}</div>
        </div>
      ))}
      {held.map((escalation) => (
        <EscalationActions key={escalation.id} escalation={escalation} />
      ))}
    </div>
  )
}
