import { parseAssignments } from './parse-assignments'
import { parseVerdict } from './parse-verdict'
import { planPrompt, reviewPrompt, synthesisPrompt, workPrompt } from './prompts'
import type { StrategyOutcome } from './strategy-outcome'
import type { SwarmSession } from './swarm-session'

/**
 * The leader plans and assigns, the workers work, the leader combines their results, and the
 * critic (or, without one, the leader) approves or sends it back with a critique, for at most
 * `maxRounds` rounds.
 *
 * @example
 * const outcome = await runHierarchical(session) // { approved: true } once the critic approves
 */
export async function runHierarchical(session: SwarmSession): Promise<StrategyOutcome> {
  const { task } = session
  const leader = session.members.find((member) => member.role === 'leader')!
  const critic = session.active.find((member) => member.role === 'critic') ?? leader
  const others = session.active.filter((member) => member !== leader && member !== critic)
  const workers = others.length > 0 ? others : [leader]
  let previous: { result: string; critique: string } | undefined
  for (let count = 0; count < session.swarm.maxRounds; count += 1) {
    session.startRound()
    const plan = await session.call({
      member: leader,
      kind: 'plan',
      prompt: planPrompt({ task, workers, ...(previous ? { previous } : {}) }),
    })
    session.record({ kind: 'plan', agentId: leader.agentId, content: plan })
    const assignments = parseAssignments({ plan, workers, task })
    for (const worker of workers) {
      session.record({
        kind: 'assignment',
        agentId: worker.agentId,
        content: assignments.get(worker)!,
      })
    }
    const texts = await session.callAll(
      workers.map((member) => ({
        member,
        kind: 'work' as const,
        prompt: workPrompt({ task, plan, subTask: assignments.get(member)! }),
      })),
    )
    const works = workers.map((member, index) => ({ member, text: texts[index]! }))
    for (const { member, text } of works) {
      session.record({ kind: 'work', agentId: member.agentId, content: text })
    }
    const author = works.length === 1 ? works[0]!.member : leader
    const result =
      works.length === 1
        ? works[0]!.text
        : await session.call({
            member: leader,
            kind: 'result',
            prompt: synthesisPrompt({ task, works }),
          })
    session.record({ kind: 'result', agentId: author.agentId, content: result })
    session.output = result
    const review = await session.call({
      member: critic,
      kind: 'critique',
      prompt: reviewPrompt({ task, result }),
    })
    const verdict = parseVerdict(review)
    session.record({
      kind: verdict.approved ? 'approval' : 'critique',
      agentId: critic.agentId,
      content: review,
    })
    session.finishRound()
    if (verdict.approved) return { approved: true }
    previous = { result, critique: verdict.critique }
  }
  return { approved: false }
}
