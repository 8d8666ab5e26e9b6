import { parseVote, voteJsonSchema } from './parse-vote'
import { proposalPrompt, votePrompt } from './prompts'
import type { StrategyOutcome } from './strategy-outcome'
import type { SwarmSession } from './swarm-session'
import { hasConsensus, tallyVotes } from './tally-votes'
import type { ResolvedSwarmMember } from './types'

/**
 * Every member but the observers proposes, then votes with its weight. A proposal with at
 * least `consensusThreshold` of the total voting weight wins; otherwise members see the
 * proposals and tallies and try again, for at most `maxRounds` rounds, after which the
 * leading proposal of the last round is the output.
 *
 * @example
 * const outcome = await runDemocratic(session) // { consensusReached: false } after maxRounds
 */
export async function runDemocratic(session: SwarmSession): Promise<StrategyOutcome> {
  const { task, swarm } = session
  const voters = session.active
  let previous:
    | { proposals: { member: ResolvedSwarmMember; text: string }[]; weights: number[] }
    | undefined
  for (let count = 0; count < swarm.maxRounds; count += 1) {
    session.startRound()
    const texts = await session.callAll(
      voters.map((member) => ({
        member,
        kind: 'proposal' as const,
        prompt: proposalPrompt({ task, ...(previous ? { previous } : {}) }),
      })),
    )
    const proposals = voters.map((member, index) => ({ member, text: texts[index]! }))
    for (const { member, text } of proposals) {
      session.record({
        kind: 'proposal',
        agentId: member.agentId,
        content: text,
        weight: member.weight,
      })
    }
    const answers = await session.callAll(
      voters.map((member) => ({
        member,
        kind: 'vote' as const,
        prompt: votePrompt({ task, proposals }),
        structured: { name: 'vote', schema: voteJsonSchema },
      })),
    )
    const votes = voters.map((member, index) => ({
      vote: parseVote(answers[index]!, proposals.length),
      weight: member.weight,
    }))
    votes.forEach(({ vote, weight }, index) => {
      session.record({
        kind: 'vote',
        agentId: voters[index]!.agentId,
        content: vote === undefined ? 'abstain' : `proposal ${vote}`,
        weight,
      })
    })
    const tally = tallyVotes(votes, proposals.length)
    const consensusReached = hasConsensus(tally, swarm.consensusThreshold)
    const best = proposals[tally.leading]!
    session.output = best.text
    const last = count === swarm.maxRounds - 1
    if (consensusReached || last) {
      session.record({ kind: 'result', agentId: best.member.agentId, content: best.text })
    }
    session.finishRound({ tally, consensusReached })
    if (consensusReached) return { consensusReached: true }
    previous = { proposals, weights: tally.weights }
  }
  return { consensusReached: false }
}
