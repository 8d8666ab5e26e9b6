import { SwarmStrategy } from '@baton/core'
import { z } from 'zod'
import { byPriority } from './by-priority'
import type { StrategyOutcome } from './strategy-outcome'
import type { SwarmSession } from './swarm-session'

export type Strategies = Record<
  Exclude<SwarmStrategy, 'adaptive'>,
  (session: SwarmSession) => Promise<StrategyOutcome>
>

// Every strategy but this one, from the swarm schema, so a new strategy is offered too.
const CHOICES = SwarmStrategy.exclude(['adaptive']).options

const choiceJsonSchema = {
  type: 'object',
  properties: { strategy: { type: 'string', enum: [...CHOICES] }, reason: { type: 'string' } },
  required: ['strategy', 'reason'],
  additionalProperties: false,
} as const

const Choice = z.object({ strategy: z.enum(CHOICES), reason: z.string().default('') })

function choicePrompt(task: string, hasLeader: boolean): string {
  return [
    `Task: ${task}`,
    'Choose how the team works on this task:',
    ...(hasLeader ? ['- hierarchical: you plan, members do parts, a critic reviews'] : []),
    '- democratic: members propose and vote',
    '- specialist: the best-fitting member does it alone',
    '- round-robin: members improve one answer in turn',
    '- competitive: every member answers, a judge picks the best',
    '- collaborative: members build one shared draft until it is done',
    'Reply with JSON only: {"strategy": "...", "reason": "..."}.',
  ].join('\n')
}

function readChoice(text: string, hasLeader: boolean) {
  for (const match of text.matchAll(/\{[^{}]*\}/g)) {
    try {
      const parsed = Choice.safeParse(JSON.parse(match[0]))
      if (parsed.success && (hasLeader || parsed.data.strategy !== 'hierarchical')) {
        return parsed.data
      }
    } catch {
      // Not JSON; try the next braces.
    }
  }
  return undefined
}

/**
 * The leader (else the member that goes first by priority) chooses one of the other
 * strategies for this task; the choice and its reason are a `plan` message of the first
 * round (so they are in the events), and the chosen strategy then runs. No valid choice
 * falls back to `specialist`, and the reason says so.
 *
 * @example
 * const outcome = await runAdaptive(session, strategies) // { chosen: { strategy: 'competitive', ... } }
 */
export async function runAdaptive(
  session: SwarmSession,
  strategies: Strategies,
): Promise<StrategyOutcome> {
  const leader = session.active.find((member) => member.role === 'leader')
  const chooser = leader ?? byPriority(session.active)[0]!
  session.startRound()
  const text = await session.call({
    member: chooser,
    kind: 'plan',
    prompt: choicePrompt(session.task, leader !== undefined),
    structured: { name: 'strategy', schema: choiceJsonSchema },
  })
  const choice = readChoice(text, leader !== undefined) ?? {
    strategy: 'specialist' as const,
    reason: `no valid choice from ${chooser.agentId}: the best-fitting member does the task`,
  }
  session.record({
    kind: 'plan',
    agentId: chooser.agentId,
    content: JSON.stringify({ strategy: choice.strategy, reason: choice.reason }),
  })
  session.finishRound()
  session.strategy = choice.strategy
  const outcome = await strategies[choice.strategy](session)
  return { ...outcome, chosen: { ...choice, by: chooser.agentId } }
}
