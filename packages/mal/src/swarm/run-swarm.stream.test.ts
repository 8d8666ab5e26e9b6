import { describe, expect, it } from 'vitest'
import { makeAgent, scriptedRunMember } from './__fixtures__/agents'
import { createInProcessSwarmRunner } from './create-in-process-swarm-runner'
import { runSwarm } from './run-swarm'
import type { SwarmEvent } from './types'

type Delta = Extract<SwarmEvent, { type: 'step-delta' }>
type Message = Extract<SwarmEvent, { type: 'swarm-message' }>

// The offline model, slowed per chunk: its answer (about 100 characters) comes in pieces.
const slow = '[[chunk-delay:5]]'
const members = ['ana', 'ben'].map((id) => makeAgent({ id, persona: slow }))
const relay = {
  id: 'relay',
  name: 'Relay',
  strategy: 'round-robin' as const,
  maxRounds: 2,
  agents: members.map((agent) => ({ agentId: agent.id, role: 'worker' as const })),
}
const task = `Write the release note ${'in plain words '.repeat(6)}`

const deltasOf = (events: SwarmEvent[]) =>
  events.filter((event): event is Delta => event.type === 'step-delta')

describe('runSwarm step-delta events', () => {
  it("streams each member call's text with the member's path and wallet, before its message", async () => {
    const events: SwarmEvent[] = []
    const result = await runSwarm(relay, task, {
      agents: members,
      onEvent: (event) => events.push(event),
    })
    expect(result.status).toBe('done')
    // The last turn's answer is also the run's `result` message (no call of its own).
    const messages = events.filter(
      (event): event is Message => event.type === 'swarm-message' && event.kind === 'work',
    )
    expect(messages).toHaveLength(4)
    const paths = [...new Set(deltasOf(events).map((delta) => delta.path))]
    expect(paths).toEqual(['r1/ana', 'r1/ben', 'r2/ana', 'r2/ben'])
    for (const message of messages) {
      const path = `r${message.round}/${message.agentId}`
      const deltas = deltasOf(events).filter((delta) => delta.path === path)
      // Coalesced: the answer comes in several pieces, fewer than the model's chunks.
      expect(deltas.length).toBeGreaterThan(1)
      const agent = members.find((member) => member.id === message.agentId)!
      for (const delta of deltas) {
        expect(delta).toMatchObject({
          runId: result.runId,
          round: message.round,
          agentId: agent.id,
          wallet: agent.wallet,
          kind: 'work',
        })
      }
      // The streamed text is the member's answer, whole and in order, all before its message.
      expect(deltas.map((delta) => delta.text).join('')).toBe(message.content)
      const at = (event: SwarmEvent) => events.indexOf(event)
      expect(deltas.every((delta) => at(delta) < at(message))).toBe(true)
    }
  })

  it('streams nothing with stepDeltas: false, or from a member that does not stream', async () => {
    const whole: SwarmEvent[] = []
    const result = await runSwarm(relay, task, {
      agents: members,
      stepDeltas: false,
      onEvent: (event) => whole.push(event),
    })
    expect(result.status).toBe('done')
    expect(deltasOf(whole)).toEqual([])

    const scripted: SwarmEvent[] = []
    await runSwarm(relay, task, {
      agents: members,
      runMember: scriptedRunMember((member) => `${member.agentId} says hi`),
      onEvent: (event) => scripted.push(event),
    })
    expect(deltasOf(scripted)).toEqual([])
  })

  it('the in-process runner hands deltas to its subscribers live and keeps none for later ones', async () => {
    const runner = createInProcessSwarmRunner({ swarms: [relay], agents: members })
    const runId = await runner.start('relay', task)
    const live: SwarmEvent[] = []
    const finished = new Promise<void>((resolve) => {
      runner.subscribe(runId, (event) => {
        live.push(event)
        if (event.type === 'swarm-finish') resolve()
      })
    })
    await finished
    expect(deltasOf(live).length).toBeGreaterThan(0)
    const late: SwarmEvent[] = []
    runner.subscribe(runId, (event) => late.push(event))
    expect(late.at(-1)?.type).toBe('swarm-finish')
    expect(deltasOf(late)).toEqual([])
  })
})
