import { byPriority } from './by-priority'
import { judgementJsonSchema, parseJudgement } from './parse-judgement'
import type { StrategyOutcome } from './strategy-outcome'
import type { SwarmSession } from './swarm-session'
import type { ResolvedSwarmMember } from './types'

/** The judge of a competitive run: the critic, else the leader (none: the answers' priority decides). */
export function judgeOf(members: readonly ResolvedSwarmMember[]): ResolvedSwarmMember | undefined {
  return (
    members.find((member) => member.role === 'critic') ??
    members.find((member) => member.role === 'leader')
  )
}

function judgePrompt(task: string, answers: { member: ResolvedSwarmMember; text: string }[]) {
  return [
    `Task: judge the answers to: ${task}`,
    ...answers.map(({ member, text }, index) => `[${index}] by ${member.agentId}:\n${text}`),
    'Reply with JSON only: {"winner": N, "reasons": "why this answer is the best"}, where N is the number in brackets.',
  ].join('\n\n')
}

/**
 * Every member but the judge answers the task on its own, at once; the judge (the critic,
 * else the leader) picks the best by a structured verdict with reasons. A judge that gives
 * no valid verdict (or no judge) leaves the choice to priority: the answer of the member
 * that goes first wins, and the verdict says so.
 *
 * @example
 * const outcome = await runCompetitive(session) // { verdict: { winner: 'ana', reasons: '...' } }
 */
export async function runCompetitive(session: SwarmSession): Promise<StrategyOutcome> {
  const { task } = session
  const judge = judgeOf(session.active)
  const competing = byPriority(session.active.filter((member) => member !== judge))
  const contestants = competing.length > 0 ? competing : byPriority(session.active)
  session.startRound()
  const texts = await session.callAll(
    contestants.map((member) => ({
      member,
      kind: 'proposal' as const,
      prompt: `Task: ${task}\n\nGive your best answer; it competes with the other members' answers.`,
    })),
  )
  const answers = contestants.map((member, index) => ({ member, text: texts[index]! }))
  for (const { member, text } of answers) {
    session.record({ kind: 'proposal', agentId: member.agentId, content: text })
  }
  let verdict: { winner: number; reasons: string } | undefined
  if (judge && answers.length > 1) {
    const text = await session.call({
      member: judge,
      kind: 'vote',
      prompt: judgePrompt(task, answers),
      structured: { name: 'judgement', schema: judgementJsonSchema },
    })
    verdict = parseJudgement(text, answers.length)
    session.record({ kind: 'vote', agentId: judge.agentId, content: text })
  }
  const chosen = verdict ?? {
    winner: 0,
    reasons:
      answers.length === 1
        ? 'the only answer'
        : `no valid verdict${judge ? ` from ${judge.agentId}` : ' (no critic or leader)'}: the member that goes first by priority wins`,
  }
  const winner = answers[chosen.winner]!
  session.record({ kind: 'result', agentId: winner.member.agentId, content: winner.text })
  session.output = winner.text
  session.finishRound()
  return {
    verdict: {
      winner: winner.member.agentId,
      reasons: chosen.reasons,
      ...(judge ? { judge: judge.agentId } : {}),
    },
  }
}
