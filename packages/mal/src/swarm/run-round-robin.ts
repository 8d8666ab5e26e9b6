import { turnPrompt } from './prompts'
import type { StrategyOutcome } from './strategy-outcome'
import type { SwarmSession } from './swarm-session'
import type { ResolvedSwarmMember } from './types'

/**
 * `maxRounds` rounds; in each, every member but the observers takes one turn, in the order
 * the swarm lists them, building on the answer so far. The last turn's answer is the output.
 *
 * @example
 * await runRoundRobin(session) // 2 rounds × 3 members = 6 turns
 */
export async function runRoundRobin(session: SwarmSession): Promise<StrategyOutcome> {
  const { task } = session
  let previous: { member: ResolvedSwarmMember; text: string } | undefined
  for (let count = 0; count < session.swarm.maxRounds; count += 1) {
    session.startRound()
    for (const member of session.active) {
      const text = await session.call({
        member,
        kind: 'work',
        prompt: turnPrompt({ task, ...(previous ? { previous } : {}) }),
      })
      session.record({ kind: 'work', agentId: member.agentId, content: text })
      session.output = text
      previous = { member, text }
    }
    if (count === session.swarm.maxRounds - 1 && previous) {
      session.record({ kind: 'result', agentId: previous.member.agentId, content: previous.text })
    }
    session.finishRound()
  }
  return {}
}
