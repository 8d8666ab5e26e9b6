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

  it('copies a card that can still change for every sub-agent, and freezes nothing of it', async () => {
    const runner = recordingRunner()
    const caller = makeAgent({ tools: ['read_file'] })
    await delegateTwice(caller, runner)
    const [first, second] = runner.turns.map((turn) => turn.agent)
    expect(second).not.toBe(first)
    expect(second).toEqual(first)
    expect(Object.isFrozen(first)).toBe(false)
    expect(Object.isFrozen(caller.tools)).toBe(false)
    // A change to the caller's card is seen by the sub-agents delegated after it.
    caller.persona = 'Terse.'
    await delegateTwice(caller, runner)
    expect(runner.turns.at(-1)?.agent.persona).toBe('Terse.')
  })
})
