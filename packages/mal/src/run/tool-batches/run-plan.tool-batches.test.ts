import { createStaticRegistry, createToolRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agentRecord, analystWallet } from '../../__fixtures__/agents'
import { offlineModels } from '../../__fixtures__/offline-models'
import { createMemoryConclave } from '../../conclave/create-memory-conclave'
import { runPlan } from '../run-plan'

function setup(persona: string) {
  let ran = 0
  const toolRegistry = createToolRegistry()
  toolRegistry.register('lookup', {
    description: 'Looks an order up',
    inputSchema: z.object({ id: z.number() }),
    execute: async ({ id }: { id: number }) => {
      ran += 1
      return { id, status: 'shipped' }
    },
  })
  const registry = createStaticRegistry([agentRecord({ tools: ['lookup'], persona })])
  return { toolRegistry, registry, ran: () => ran }
}

const plan = (maxToolBatches: number) => ({
  maxToolBatches,
  steps: [{ op: 'delegate', agentWallet: analystWallet, prompt: 'Check orders', saveAs: 'answer' }],
})
const twoLookups = '[[tool:lookup {"id":1}]] [[tool:lookup {"id":2}]] [[answer:checked]]'

describe('maxToolBatches', () => {
  it('lets a run that fits its tool batches finish', async () => {
    const { toolRegistry, registry, ran } = setup(twoLookups)
    const result = await runPlan(plan(2), { registry, toolRegistry, models: offlineModels() })
    expect(result.status).toBe('done')
    expect(ran()).toBe(2)
  })

  it('ends the run with TOOL_BATCHES_EXCEEDED at the batch past the limit, before its tools run', async () => {
    const { toolRegistry, registry, ran } = setup(twoLookups)
    const result = await runPlan(plan(1), { registry, toolRegistry, models: offlineModels() })
    expect(result.error).toMatchObject({ code: 'TOOL_BATCHES_EXCEEDED', path: 'steps[0]' })
    expect(ran()).toBe(1)
  })

  it('counts each tool step as one batch', async () => {
    const { toolRegistry, registry, ran } = setup('')
    const result = await runPlan(
      {
        maxToolBatches: 1,
        steps: [
          { op: 'tool', toolName: 'lookup', args: { id: 1 }, saveAs: 'one' },
          { op: 'tool', toolName: 'lookup', args: { id: 2 }, saveAs: 'two' },
        ],
      },
      { registry, toolRegistry },
    )
    expect(result.error).toMatchObject({ code: 'TOOL_BATCHES_EXCEEDED', path: 'steps[1]' })
    expect(ran()).toBe(1)
  })

  it('counts the tools the host grants too (the conclave’s), in delegate and task steps alike', async () => {
    const writes =
      '[[tool:conclave_write {"key":"a","value":1}]] [[tool:conclave_write {"key":"b","value":2}]]'
    const registry = createStaticRegistry([agentRecord({ persona: writes })])
    for (const op of ['delegate', 'task'] as const) {
      const store = createMemoryConclave()
      const result = await runPlan(
        {
          maxToolBatches: 1,
          steps: [{ op, agentWallet: analystWallet, prompt: 'Note it', saveAs: 'answer' }],
        },
        { registry, models: offlineModels(), conclave: { store, space: `batches-${op}` } },
      )
      expect(result.error).toMatchObject({ code: 'TOOL_BATCHES_EXCEEDED', path: 'steps[0]' })
      // The batch past the limit was refused before its tool ran.
      expect(await store.list(`batches-${op}`)).toEqual(['a'])
    }
  })
})
