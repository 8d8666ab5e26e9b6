import { workPrompt } from './prompts'
import { scoreFit } from './score-fit'
import type { StrategyOutcome } from './strategy-outcome'
import type { SwarmSession } from './swarm-session'

/**
 * The member whose agent best fits the task (see `scoreFit`; a tie goes to the member listed
 * first) does the whole task, in one round.
 *
 * @example
 * await runSpecialist(session) // the reviewer answers a "review this code" task
 */
export async function runSpecialist(session: SwarmSession): Promise<StrategyOutcome> {
  const { task } = session
  const candidates = session.active
  let chosen = candidates[0]!
  let best = -1
  for (const member of candidates) {
    const score = scoreFit(task, member.agent)
    if (score > best) {
      best = score
      chosen = member
    }
  }
  session.startRound()
  session.record({ kind: 'assignment', agentId: chosen.agentId, content: task })
  const text = await session.call({
    member: chosen,
    kind: 'work',
    prompt: workPrompt({
      task,
      plan: `${chosen.agentId} does the task (fit score ${best}).`,
      subTask: task,
    }),
  })
  session.record({ kind: 'work', agentId: chosen.agentId, content: text })
  session.record({ kind: 'result', agentId: chosen.agentId, content: text })
  session.output = text
  session.finishRound()
  return {}
}
