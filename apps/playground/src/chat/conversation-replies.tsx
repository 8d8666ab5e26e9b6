import { useAgentCommunicationStore } from '@baton/surface'
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
      {held.map((escalation) => (
        <EscalationActions key={escalation.id} escalation={escalation} />
      ))}
    </div>
  )
}
