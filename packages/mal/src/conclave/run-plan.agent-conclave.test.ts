import { createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { agentRecord, analystWallet } from '../__fixtures__/agents'
import { runPlan } from '../run/run-plan'
import { createMemoryConclave } from './create-memory-conclave'

const write = (value: string) =>
  `[[tool:conclave_write {"key":"finding","value":"${value}","ifVersion":0}]]`
// A directive for a sub-agent, inside its caller's: escaped, so only the sub-agent follows it.
const nested = (directive: string) =>
  directive.replaceAll('[', '\\u005b').replaceAll(']', '\\u005d').replaceAll('"', '\\"')

describe('conclave tools of a plan’s agents', () => {
  it('lets a task or delegate agent write the run’s conclave, read back by a conclave step', async () => {
    const persona = `${write('from the task agent')} ${write('a rival')}`
    const registry = createStaticRegistry([agentRecord({ persona })])
    for (const op of ['task', 'delegate'] as const) {
      const store = createMemoryConclave()
      const result = await runPlan(
        {
          steps: [
            { op, agentWallet: analystWallet, prompt: 'Investigate', saveAs: 'answer' },
            { op: 'conclave', action: 'read', key: 'finding', saveAs: 'finding' },
          ],
        },
        { registry, conclave: { store, retainMs: 60_000 } },
      )
      expect(result.error).toBeUndefined()
      expect(result.values.finding).toMatchObject({
        value: 'from the task agent',
        writtenBy: analystWallet,
      })
      // Its second, stale write reached it as a refusal, not as a failed step.
      expect(result.values.answer).toMatch(/"ok":false,"code":"CONCLAVE_CONFLICT"/)
    }
  })

  it('gives the sub-agents of a task agent the same keyspace', async () => {
    const registry = createStaticRegistry([
      agentRecord({ agentCard: { canDelegate: true, capabilityDescription: 'Splits its work' } }),
    ])
    const deep = '[[tool:conclave_write {"key":"deep","value":"from a sub-agent","ifVersion":0}]]'
    const prompt = `[[tool:delegate_agent {"task":"${nested(deep)}"}]] [[tool:wait_agents {}]]`
    const store = createMemoryConclave()
    const result = await runPlan(
      {
        steps: [
          { op: 'task', agentWallet: analystWallet, prompt, saveAs: 'answer' },
          { op: 'conclave', action: 'read', key: 'deep', saveAs: 'deep' },
        ],
      },
      { registry, conclave: { store, retainMs: 60_000 } },
    )
    expect(result.error).toBeUndefined()
    expect(result.values.deep).toMatchObject({
      value: 'from a sub-agent',
      writtenBy: analystWallet,
    })
  })
})
