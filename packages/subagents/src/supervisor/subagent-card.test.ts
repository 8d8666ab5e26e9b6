import type { Agent } from '@baton/core'
import { createBudget } from '@baton/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createAgentRunner } from '../runner/create-agent-runner'
import type { SubagentRunner, SubagentTurn } from '../runner/types'
import { makeTempRoot } from './__fixtures__/helpers'
import { makeAgent } from './__fixtures__/make-agent'
import { createSupervisor } from './create-supervisor'

let root: string
let remove: () => Promise<void>
beforeEach(async () => ({ root, remove } = await makeTempRoot()))
afterEach(() => remove())

/** Frozen through and through, as a registry hands cards out. */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value
  Object.freeze(value)
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key])
  return value
}

/** The default runner, keeping the card each turn ran with. */
function recordingRunner(): SubagentRunner & { turns: SubagentTurn[] } {
  const base = createAgentRunner()
  const turns: SubagentTurn[] = []
  return {
    turns,
    filesOnlyThroughTools: true,
    run(turn) {
      turns.push(turn)
      return base.run(turn)
    },
  }
}

async function delegateTwice(agent: ReturnType<typeof makeAgent>, runner: SubagentRunner) {
  const supervisor = createSupervisor({
    agent,
    workspace: { kind: 'directory', root },
    budget: createBudget({ calls: 10 }),
    runner,
  })
  const first = supervisor.delegate('one')
  const second = supervisor.delegate('two')
  const reports = await supervisor.waitAgents([first, second])
  expect([reports?.[first]?.status, reports?.[second]?.status]).toEqual(['done', 'done'])
}

describe('sub-agent cards', () => {
  it('gives sub-agents of a frozen card one frozen card, with the granted tools', async () => {
    const runner = recordingRunner()
    const caller = deepFreeze(
      makeAgent({ tools: ['read_file'], agentCard: { canDelegate: false } }),
    )
    await delegateTwice(caller, runner)
    const [first, second] = runner.turns.map((turn) => turn.agent)
    expect(second).toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
    expect(Object.isFrozen(first!.tools)).toBe(true)
    expect(first!.tools).toEqual(['read_file', 'ask_caller'])
    expect(first!.model).toBe(caller.model)
    expect(caller.tools).toEqual(['read_file'])
  })

  it('gives sub-agents of a card that can still change one frozen copy of it, made again when it changes, and freezes nothing of the caller’s', async () => {
    const runner = recordingRunner()
    const caller = makeAgent({
      tools: ['read_file'],
      agentCard: { canDelegate: false },
      config: { team: { lead: 'ops' } },
    })
    await delegateTwice(caller, runner)
    const [first, second] = runner.turns.map((turn) => turn.agent)
    expect(second).toBe(first)
    expect(first).not.toBe(caller)
    expect(Object.isFrozen(first)).toBe(true)
    expect(Object.isFrozen(first!.tools)).toBe(true)
    expect(first!.tools).toEqual(['read_file', 'ask_caller'])
    expect(Object.isFrozen(caller)).toBe(false)
    expect(Object.isFrozen(caller.tools)).toBe(false)
    expect(Object.isFrozen(caller.config.team)).toBe(false)
    expect(caller.tools).toEqual(['read_file'])

    // A change to the caller's card, at its top or deep inside, is seen by the sub-agents
    // delegated after it; the ones delegated before keep the card they started with.
    caller.persona = 'Terse.'
    await delegateTwice(caller, runner)
    const afterPersona = runner.turns.at(-1)?.agent
    expect(afterPersona?.persona).toBe('Terse.')
    expect(afterPersona).not.toBe(first)
    expect(first!.persona).toBeUndefined()
    ;(caller.config.team as { lead: string }).lead = 'dev'
    caller.tools.push('list_files')
    await delegateTwice(caller, runner)
    const afterDeep = runner.turns.at(-1)?.agent
    expect(afterDeep?.config).toEqual({ team: { lead: 'dev' } })
    expect(afterDeep?.tools).toEqual(['read_file', 'list_files', 'ask_caller'])
    expect(afterPersona?.config).toEqual({ team: { lead: 'ops' } })
  })

  it('copies a card holding more than plain data, a cycle or a large config for every sub-agent, as before', async () => {
    const cyclic: Record<string, unknown> = { name: 'loop' }
    cyclic.self = cyclic
    const large = { rows: Array.from({ length: 2_000 }, (_, index) => ({ index })) }
    for (const config of [{ onEvent: () => undefined }, { cyclic }, large]) {
      const runner = recordingRunner()
      const caller = makeAgent({ tools: ['read_file'], config })
      await delegateTwice(caller, runner)
      const [first, second] = runner.turns.map((turn) => turn.agent)
      expect(second).not.toBe(first)
      expect(second?.config).toBe(caller.config)
      expect(Object.isFrozen(caller.config)).toBe(false)
    }
  })

  it('gives a chain of sub-agents on one model one card, and a new card only where the model changes', async () => {
    // Level n delegates level n + 1 (on the model its task names, if any) and waits for it,
    // through the tools a model would call.
    const cards = new Map<number, Agent>()
    const base = createAgentRunner()
    const runner: SubagentRunner = {
      filesOnlyThroughTools: true,
      passesToolContext: true,
      async run(turn) {
        const result = await base.run(turn)
        const level = Number(/level (\d+)/.exec(String(turn.messages.at(-1)?.content))?.[1])
        cards.set(level, turn.agent)
        if (level < 4) {
          const call = { toolCallId: 'c', messages: [], experimental_context: turn.toolContext }
          const model = level === 2 ? 'offline:small' : undefined
          const { id } = (await turn.tools.delegate_agent!.execute!(
            { task: `level ${level + 1}`, ...(model ? { model } : {}) },
            call,
          )) as { id: string }
          const reports = (await turn.tools.wait_agents!.execute!({ ids: [id] }, call)) as Record<
            string,
            { status: string }
          >
          expect(reports[id]?.status).toBe('done')
        }
        return result
      },
    }
    const supervisor = createSupervisor({
      agent: deepFreeze(makeAgent({ tools: ['read_file'] })),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 20 }),
      runner,
      maxDepth: 4,
    })
    const id = supervisor.delegate('level 1')
    expect((await supervisor.waitAgents([id]))?.[id]?.status).toBe('done')
    expect([...cards.keys()].sort()).toEqual([1, 2, 3, 4])
    // Levels 1 and 2 run on the caller's model with one card; level 2 delegated on another
    // model, so levels 3 and 4 share another card, which differs from it only in the model.
    expect(cards.get(2)).toBe(cards.get(1))
    expect(cards.get(4)).toBe(cards.get(3))
    expect(cards.get(3)).not.toBe(cards.get(1))
    expect([cards.get(1)?.model, cards.get(3)?.model]).toEqual(['offline:default', 'offline:small'])
    const { model: _first, ...restOfFirst } = cards.get(1)!
    const { model: _third, ...restOfThird } = cards.get(3)!
    expect(restOfThird).toEqual(restOfFirst)
  })
})
