import { useAgentCommunicationStore, useAgentStore } from '@baton/surface'
import { useStore } from 'zustand'
import { stores } from '../api/stores'
import { EscalationActions } from '../ui/escalation-actions'
import { formatUsdBeside } from '../ui/format-usd'
import { AnswerSpendList, useConversationSpend } from './answer-spend-list'

/**
 * The server's messages of one conversation as they arrive, in the order they were written
 * (a delegated part before the answer it went into), each answer with what it cost per agent,
 * and the conversation's open escalations.
 */
export function ConversationReplies({ correlationId }: { correlationId: string }) {
  const view = useAgentCommunicationStore((state) => state.correlations.get(correlationId))
  const escalations = useAgentCommunicationStore((state) => state.escalations)
  const held = escalations.filter(
    (escalation) => escalation.correlationId === correlationId && escalation.status === 'open',
  )
  const replies = (view?.messages ?? [])
    .filter((message) => message.hop > 0 || message.type === 'reply')
    .sort((left, right) => left.createdAt.localeCompare(right.createdAt))
  const spend = useConversationSpend(correlationId, view?.messages.length ?? 0)
  // Replies still being written, as the agent's model streams them.
  const allDrafts = useStore(stores.comm, (state) => state.replyDrafts)
  const drafts = [...allDrafts.values()].filter((draft) => draft.correlationId === correlationId)
  const agents = useAgentStore((state) => state.agents)
  const nameOf = (agentId: string) => agents.find((agent) => agent.id === agentId)?.name ?? agentId
  const total = spend.reduce((sum, row) => sum + row.costUsd, 0)
  const spenders = new Set(spend.map((row) => row.wallet.toLowerCase())).size
  // Every figure to the digit of the smallest one, so $0.000100 and $0.000016 read alike.
  const costs = spend.map((row) => row.costUsd).filter((cost) => cost > 0)
  const finest = costs.length > 0 ? Math.min(...costs) : undefined
  return (
    <div className="stack" aria-live="polite">
      {replies.map((message) => (
        <div key={message.id} className="bubble" data-message-type={message.type}>
          <div className="muted" style={{ fontSize: '0.8rem' }}>
            {message.from.agentName ?? nameOf(message.from.agentId)} → {nameOf(message.to.agentId)}{' '}
            · hop {message.hop}
            {message.type === 'reply' ? ' · reply' : ''}
          </div>
          <div style={{ whiteSpace: 'pre-wrap' }}>{message.content}</div>
          {message.type === 'reply' ? (
            <AnswerSpendList
              spend={spend}
              inReplyTo={message.inReplyTo}
              answeredBy={message.from.agentId}
              agents={agents}
              finest={finest}
            />
          ) : null}
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
            {nameOf(draft.from.agentId)} → {nameOf(draft.to.agentId)} · writing…
          </div>
          <div style={{ whiteSpace: 'pre-wrap' }}>{draft.text}</div>
        </div>
      ))}
      {spenders > 1 ? (
        <p className="muted" data-conversation-spend style={{ margin: 0, fontSize: '0.85rem' }}>
          {spenders} agents worked on this: {formatUsdBeside(total, finest)} in all.
        </p>
      ) : null}
      {held.map((escalation) => (
        <EscalationActions key={escalation.id} escalation={escalation} />
      ))}
    </div>
  )
}
