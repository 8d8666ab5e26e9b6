import { describe, expect, it } from 'vitest'
import { agents, analyst, orchestrator, reviewer } from '../__fixtures__/agents'
import { answerSpend, type MessageSpend } from './answer-spend'

const row = (messageId: string, wallet: string, costUsd: number): MessageSpend => ({
  messageId,
  wallet,
  calls: 1,
  tokens: 10,
  costUsd,
})

describe('answerSpend', () => {
  const spend = [
    row('msg_person', reviewer.wallet, 0.00002),
    row('msg_person', orchestrator.wallet.toLowerCase(), 0.00003),
    row('msg_forwarded', analyst.wallet, 0.00001),
  ]

  it('names the agent that answered first, then the sub-agents it ran, each with its spend', () => {
    expect(
      answerSpend({ spend, inReplyTo: 'msg_person', answeredBy: 'orchestrator', agents }),
    ).toEqual([
      {
        wallet: orchestrator.wallet.toLowerCase(),
        name: 'Ops Orchestrator',
        role: 'answered',
        calls: 1,
        costUsd: 0.00003,
      },
      { wallet: reviewer.wallet, name: 'Reviewer', role: 'sub-agent', calls: 1, costUsd: 0.00002 },
    ])
  })

  it('keeps the spend of each answer to its own message', () => {
    const lines = answerSpend({ spend, inReplyTo: 'msg_forwarded', answeredBy: 'analyst', agents })
    expect(lines.map((line) => [line.name, line.role])).toEqual([['Incident Analyst', 'answered']])
    expect(answerSpend({ spend, inReplyTo: undefined, answeredBy: 'analyst', agents })).toEqual([])
  })

  it('shortens the wallet of an agent the page does not know', () => {
    const stranger = `0x${'ab'.repeat(20)}`
    const [line] = answerSpend({
      spend: [row('msg_x', stranger, 0.1)],
      inReplyTo: 'msg_x',
      answeredBy: 'gone',
      agents,
    })
    expect(line).toMatchObject({ name: '0xabab…abab', role: 'sub-agent' })
  })
})
