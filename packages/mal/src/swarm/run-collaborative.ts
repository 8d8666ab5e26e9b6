import { BatonError } from '@baton/core'
import { byPriority } from './by-priority'
import type { StrategyOutcome } from './strategy-outcome'
import type { SwarmSession } from './swarm-session'
import type { ResolvedSwarmMember } from './types'

/** The conclave key the shared draft of a collaborative run lives under. */
export const DRAFT_KEY = 'draft'

const DONE = /^[\s*_`#>"']*done\b[\s:.!-]*/i

const mayEnd = (member: ResolvedSwarmMember) =>
  member.role === 'leader' || member.canTerminate === true

function turnPrompt(task: string, draft: unknown, version: number, canEnd: boolean): string {
  return [
    `Task: ${task}`,
    version === 0
      ? 'There is no draft yet: write the first one.'
      : `The shared draft so far (version ${version}):\n${String(draft)}`,
    'Improve the draft and reply with the whole improved draft.',
    ...(canEnd
      ? ['If the draft is complete and needs nothing more, reply with DONE first instead.']
      : []),
  ].join('\n\n')
}

/**
 * Members build one draft in the run's conclave (key `draft`), in turn by priority, round
 * after round: each reads the current draft and writes its improved whole with
 * compare-and-set on the version it read (a draft changed meanwhile, say by an agent's
 * conclave tool, is kept and the turn's text added to it). The leader or a `canTerminate`
 * member ends the run by answering DONE (from another member, DONE adds nothing); otherwise
 * it ends after `maxRounds`.
 *
 * @example
 * const outcome = await runCollaborative(session) // { terminatedBy: 'lead' }
 */
export async function runCollaborative(session: SwarmSession): Promise<StrategyOutcome> {
  const { task, swarm } = session
  const { store, space } = session.conclave
  const order = byPriority(session.active)
  for (let round = 1; round <= swarm.maxRounds; round++) {
    session.startRound()
    for (const member of order) {
      const current = await store.read(space, DRAFT_KEY)
      const version = current?.version ?? 0
      const text = await session.call({
        member,
        kind: 'work',
        prompt: turnPrompt(task, current?.value, version, mayEnd(member) && version > 0),
      })
      // DONE from anyone means "nothing to add"; only the leader's or a canTerminate member's ends the run.
      const saysDone = DONE.test(text)
      const done = saysDone && mayEnd(member) && version > 0
      const content = saysDone ? text.replace(DONE, '').trim() : text
      if (content) {
        await writeDraft(session, member, content, version)
        session.record({ kind: 'work', agentId: member.agentId, content })
      }
      if (done) {
        session.output = String((await store.read(space, DRAFT_KEY))?.value ?? '')
        session.record({ kind: 'result', agentId: member.agentId, content: session.output })
        session.finishRound()
        return { terminatedBy: member.agentId }
      }
    }
    session.output = String((await store.read(space, DRAFT_KEY))?.value ?? '')
    session.finishRound()
  }
  return {}
}

async function writeDraft(
  session: SwarmSession,
  member: ResolvedSwarmMember,
  content: string,
  version: number,
): Promise<void> {
  const { store, space } = session.conclave
  const writtenBy = member.agent.wallet
  try {
    await store.write(space, DRAFT_KEY, content, { writtenBy, ifVersion: version })
  } catch (error) {
    if (!BatonError.isInstance(error) || error.code !== 'CONCLAVE_CONFLICT') throw error
    const newer = await store.read(space, DRAFT_KEY)
    const merged = newer ? `${String(newer.value)}\n\n${content}` : content
    await store.write(space, DRAFT_KEY, merged, { writtenBy, ifVersion: newer?.version ?? 0 })
  }
}
