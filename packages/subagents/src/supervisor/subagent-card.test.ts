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
})
