import type { Agent } from '@baton/core'
import type { MessageSpend } from '../api/client'

export type { MessageSpend }

/** One line of what an answer cost: who (by name), whether it did the work or was a sub-agent of the one who did. */
export type AnswerSpendLine = {
  wallet: string
  name: string
  role: 'answered' | 'sub-agent'
  calls: number
  costUsd: number
}

const sameWallet = (left: string, right: string) => left.toLowerCase() === right.toLowerCase()

/**
 * The lines of what the answer to message `inReplyTo` cost, the answering agent first, then
 * the sub-agents it ran on its budget, each named by its wallet's agent.
 *
 * @example
 * answerSpend({ spend, inReplyTo: reply.inReplyTo, answeredBy: 'orchestrator', agents })
 * // [{ name: 'Ops Orchestrator', role: 'answered', … }, { name: 'Reviewer', role: 'sub-agent', … }]
 */
export function answerSpend(options: {
  spend: readonly MessageSpend[]
  inReplyTo: string | undefined
  answeredBy: string
  agents: readonly Agent[]
}): AnswerSpendLine[] {
  const { spend, inReplyTo, answeredBy, agents } = options
  if (!inReplyTo) return []
  const answerer = agents.find((agent) => agent.id === answeredBy)
  const lines = spend
    .filter((row) => row.messageId === inReplyTo)
    .map((row): AnswerSpendLine => {
      const agent = agents.find((each) => sameWallet(each.wallet, row.wallet))
      const own = answerer ? sameWallet(answerer.wallet, row.wallet) : false
      return {
        wallet: row.wallet,
        name: agent?.name ?? `${row.wallet.slice(0, 6)}…${row.wallet.slice(-4)}`,
        role: own ? 'answered' : 'sub-agent',
        calls: row.calls,
        costUsd: row.costUsd,
      }
    })
  return [
    ...lines.filter((line) => line.role === 'answered'),
    ...lines.filter((line) => line.role === 'sub-agent'),
  ]
}
