import type { Agent } from '@baton/core'
import { useEffect, useState } from 'react'
import { type MessageSpend, serverApi } from '../api/client'
import { countOf } from '../ui/count-of'
import { formatUsdBeside } from '../ui/format-usd'
import { type AnswerSpendLine, answerSpend } from './answer-spend'

/**
 * What each answer of a conversation cost, read again whenever `version` changes (a new
 * message arrived: its answerer's spend is booked before the answer is sent).
 */
export function useConversationSpend(correlationId: string, version: number): MessageSpend[] {
  const [spend, setSpend] = useState<MessageSpend[]>([])
  // biome-ignore lint/correctness/useExhaustiveDependencies: version is the signal to read again
  useEffect(() => {
    let live = true
    serverApi.conversationSpend(correlationId).then(
      (rows) => {
        if (live) setSpend(rows)
      },
      () => undefined,
    )
    return () => {
      live = false
    }
  }, [correlationId, version])
  return spend
}

function Line({ line, finest }: { line: AnswerSpendLine; finest: number | undefined }) {
  return (
    <li data-spend-wallet={line.wallet} data-spend-role={line.role}>
      <span className="answer-spend-name">{line.name}</span>
      {line.role === 'sub-agent' ? <span className="muted"> (its sub-agent)</span> : null}{' '}
      <span className="answer-spend-cost">{formatUsdBeside(line.costUsd, finest)}</span>
      <span className="muted"> · {countOf(line.calls, 'call')}</span>
    </li>
  )
}

/** Who spent what on one answer: the agent that answered and the sub-agents it ran. */
export function AnswerSpendList(props: {
  spend: readonly MessageSpend[]
  inReplyTo: string | undefined
  answeredBy: string
  agents: readonly Agent[]
  /** The smallest spend shown beside this one, so every figure has the digits it needs. */
  finest?: number | undefined
}) {
  const lines = answerSpend(props)
  if (lines.length === 0) return null
  return (
    <ul className="answer-spend" aria-label="What this answer cost">
      {lines.map((line) => (
        <Line key={line.wallet} line={line} finest={props.finest} />
      ))}
    </ul>
  )
}
