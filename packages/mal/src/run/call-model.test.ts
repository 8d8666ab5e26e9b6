import { createStaticRegistry, defaultPriceTable, type ModelRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { type CallOptions, offlineModels } from '../__fixtures__/offline-models'
import { runPlan } from './run-plan'

const registry = createStaticRegistry([])

const fanoutOfThree = (budget: Record<string, number>) => ({
  budget,
  steps: [
    {
      op: 'fanout',
      saveAs: 'all',
      branches: ['a', 'b', 'c'].map((id) => ({
        id,
        steps: [{ op: 'models_call', saveAs: id, model: 'offline:x', prompt: `[[answer:${id}]]` }],
      })),
    },
    { op: 'stop', output: '{{all}}' },
  ],
})

describe('callModel', () => {
  it('lets every branch of a fanout call under a token budget (no branch takes it all)', async () => {
    const result = await runPlan(fanoutOfThree({ tokens: 10_000 }), { registry })
    expect(result.error).toBeUndefined()
    expect(result.status).toBe('done')
    expect(result.output).toEqual({ a: 'a', b: 'b', c: 'c' })
  })

  it('lets every branch of a fanout call under a cost budget', async () => {
    const result = await runPlan(fanoutOfThree({ cost: 1 }), { registry })
    expect(result.error).toBeUndefined()
    expect(result.status).toBe('done')
  })

  it('asks for a bounded answer, not all the money left, at real prices', async () => {
    const calls: CallOptions[] = []
    const offline = offlineModels({
      providers: { openai: {} },
      onCall: ({ options }) => calls.push(options),
    })
    const models: ModelRegistry = {
      languageModel: (ref) => offline.languageModel(ref),
      providers: () => offline.providers(),
      prices: defaultPriceTable,
    }
    const result = await runPlan(
      {
        steps: [
          {
            op: 'models_call',
            saveAs: 'a',
            model: 'openai:gpt-4o-mini',
            prompt: 'hi',
            budget: { cost: 0.5 },
          },
        ],
      },
      { registry, models },
    )
    expect(result.status).toBe('done')
    expect(calls[0]?.maxOutputTokens).toBeGreaterThan(0)
    expect(calls[0]?.maxOutputTokens).toBeLessThanOrEqual(4096)
  })
})
