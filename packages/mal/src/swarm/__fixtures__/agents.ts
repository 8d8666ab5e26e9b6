import { createHash } from 'node:crypto'
import { Agent, type AgentInput } from '@baton/core'
import type { ResolvedSwarmMember, RunMember, RunMemberOptions } from '../types'

const CREATOR = '0x52908400098527886e0f7030069857d2e4169ee7'

/** A valid agent on the offline model; the wallet is derived from the id. */
export function makeAgent(input: { id: string } & Partial<Omit<AgentInput, 'id'>>): Agent {
  const wallet = `0x${createHash('sha1').update(input.id).digest('hex')}`
  return Agent.parse({
    wallet,
    creator: CREATOR,
    name: input.id[0]!.toUpperCase() + input.id.slice(1),
    type: 'worker',
    model: 'offline:default',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...input,
  })
}

export type ScriptedCall = {
  agentId: string
  kind: RunMemberOptions['kind']
  round: number
  prompt: string
}

/**
 * A runMember that answers from a script and charges the budget like runAgent does
 * (one call, tokens from the text lengths, $1 per million tokens), to the member's wallet.
 */
export function scriptedRunMember(
  script: (
    member: ResolvedSwarmMember,
    prompt: string,
    options: RunMemberOptions,
  ) => string | Promise<string>,
  calls: ScriptedCall[] = [],
): RunMember {
  return async (member, prompt, options) => {
    calls.push({ agentId: member.agentId, kind: options.kind, round: options.round, prompt })
    const reservation = options.budget.reserve({ calls: 1 })
    try {
      const text = await script(member, prompt, options)
      options.signal.throwIfAborted()
      const tokens = Math.ceil(prompt.length / 4) + Math.ceil(text.length / 4)
      const usage = { calls: 1, tokens, costUsd: tokens / 1_000_000 }
      reservation.settle(usage, { wallet: member.agent.wallet })
      return { text, usage }
    } catch (error) {
      reservation.release()
      throw error
    }
  }
}
