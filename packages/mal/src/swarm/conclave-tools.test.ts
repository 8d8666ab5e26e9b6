import { type AgentSwarmInput, createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { offlineModels } from '../__fixtures__/offline-models'
import { createMemoryConclave } from '../conclave/create-memory-conclave'
import { runPlan } from '../run/run-plan'
import { makeAgent, scriptedRunMember } from './__fixtures__/agents'
import { runSwarm } from './run-swarm'

const write = (value: string) =>
  `[[tool:conclave_write {"key":"finding","value":"${value}","ifVersion":0}]]`
const ana = makeAgent({ id: 'ana', persona: `${write('root cause: disk')} ${write('a rival')}` })
const ben = makeAgent({ id: 'ben', persona: '[[tool:conclave_read {"key":"finding"}]]' })
const pair = (extra: Partial<AgentSwarmInput>): AgentSwarmInput => ({
  id: 'pair',
  name: 'Pair',
  strategy: 'round-robin',
  maxRounds: 1,
  agents: [
    { agentId: 'ana', role: 'worker' },
    { agentId: 'ben', role: 'worker' },
  ],
  ...extra,
})

/** The tool names each member call offered the model. */
function observedModels() {
  const offered: string[][] = []
  const models = offlineModels({
    onCall: ({ options }) => offered.push((options.tools ?? []).map((tool) => tool.name)),
  })
  return { models, offered }
}

describe('conclave tools of swarm members', () => {
  it('lets a member write what the next member and a later conclave step read, by its wallet', async () => {
    const store = createMemoryConclave()
    const { models, offered } = observedModels()
    const result = await runSwarm(pair({ sharedContext: true }), 'Find the root cause', {
      agents: [ana, ben],
      models,
      conclave: { store, space: 'root-run' },
    })
    expect(result.status).toBe('done')
    expect(offered[0]).toEqual(
      expect.arrayContaining([
        'conclave_read',
        'conclave_write',
        'conclave_list',
        'conclave_delete',
      ]),
    )
    const [first, second] = result.rounds[0]!.messages
    // The stale ifVersion came back to the model as a refusal; the run went on.
    expect(first?.content).toMatch(/conclave_write → \{"ok":true/)
    expect(first?.content).toMatch(/conclave_write → \{"ok":false,"code":"CONCLAVE_CONFLICT"/)
    expect(second?.content).toMatch(
      /conclave_read → \{"ok":true,"result":\{"value":"root cause: disk"/,
    )
    expect(second?.content).toContain(`"writtenBy":"${ana.wallet}"`)

    const later = await runPlan(
      { steps: [{ op: 'conclave', action: 'read', key: 'finding', saveAs: 'finding' }] },
      { registry: createStaticRegistry([]), conclave: { store, space: 'root-run' } },
    )
    expect(later.values.finding).toMatchObject({
      value: 'root cause: disk',
      writtenBy: ana.wallet,
      version: 1,
    })
  })

  it('gives them to members of shared-memory and collaborative swarms too', async () => {
    for (const extra of [
      { communication: 'shared-memory' as const },
      { strategy: 'collaborative' as const, agents: [{ agentId: 'ana', role: 'leader' as const }] },
    ]) {
      const { models, offered } = observedModels()
      const plain = makeAgent({ id: 'ana' })
      const result = await runSwarm(pair(extra), 'Draft the notes', {
        agents: [plain, ben],
        models,
      })
      expect(result.status).toBe('done')
      expect(offered.length).toBeGreaterThan(0)
      for (const names of offered) expect(names).toContain('conclave_write')
    }
  })

  it('gives no conclave tools to members of a swarm that does not share its conclave', async () => {
    const { models, offered } = observedModels()
    const quiet = [makeAgent({ id: 'ana' }), makeAgent({ id: 'ben' })]
    const result = await runSwarm(pair({}), 'Find the root cause', { agents: quiet, models })
    expect(result.status).toBe('done')
    expect(offered).toHaveLength(2)
    for (const names of offered)
      expect(names.some((name) => name.startsWith('conclave_'))).toBe(false)
  })

  it('gives them to members of an adaptive swarm once it has chosen collaborative', async () => {
    const shared: boolean[] = []
    const runMember = scriptedRunMember((member, _prompt, options) => {
      shared.push(options.conclave?.space === 'root-run')
      if (options.kind === 'plan') return '{"strategy": "collaborative", "reason": "one draft"}'
      return member.role === 'leader' && options.round > 1 ? 'DONE' : `${member.agentId} text`
    })
    const result = await runSwarm(
      pair({ strategy: 'adaptive', agents: [{ agentId: 'ana', role: 'leader' }] }),
      'Draft the notes',
      {
        agents: [makeAgent({ id: 'ana' })],
        runMember,
        conclave: { store: createMemoryConclave(), space: 'root-run' },
      },
    )
    expect(result.chosen?.strategy).toBe('collaborative')
    // The choice itself was made without them; every collaborative turn had them.
    expect(shared[0]).toBe(false)
    expect(shared.length).toBeGreaterThan(1)
    expect(shared.slice(1).every(Boolean)).toBe(true)
  })
})
