import { createStaticRegistry, defaultPriceTable, type ModelRegistry } from '@baton/core'
import { countAbortControllers } from '@baton/testing/abort-controllers'
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

const fanout = (width: number, prompt: string) => ({
  steps: [
    {
      op: 'fanout',
      saveAs: 'all',
      branches: Array.from({ length: width }, (_, index) => ({
        id: `b${index}`,
        steps: [{ op: 'models_call', saveAs: `v${index}`, model: 'offline:x', prompt }],
      })),
    },
  ],
})

/** How many `AbortController`s `work` made. */
async function countingAbortControllers(work: () => Promise<void>): Promise<number> {
  const made = countAbortControllers()
  try {
    await work()
  } finally {
    made.restore()
  }
  return made.count
}

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

  it('makes no abort signal per branch for a model that never reads one', async () => {
    const offline = offlineModels()
    // The offline model, less the signal: what the model never reads, no branch makes.
    const blind: ModelRegistry = {
      ...offline,
      languageModel: (ref) => {
        const model = offline.languageModel(ref)
        // (Naming `abortSignal`, even to leave it out, reads it.)
        return {
          ...model,
          doGenerate: (call) =>
            model.doGenerate({ prompt: call.prompt, maxOutputTokens: call.maxOutputTokens }),
        }
      },
    }
    const made = (width: number) =>
      countingAbortControllers(async () => {
        const result = await runPlan(fanout(width, 'hi'), { registry, models: blind })
        expect(result.status).toBe('done')
      })
    expect(await made(40)).toBe(await made(2))
  })

  it("aborts every branch's call in flight when the run is cancelled", async () => {
    const cancel = new AbortController()
    const started = Date.now()
    const run = runPlan(fanout(3, '[[sleep:20000]] slow'), { registry, signal: cancel.signal })
    setTimeout(() => cancel.abort(), 50)
    const result = await run
    expect(result.status).toBe('cancelled')
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(result.usage.calls).toBe(0)
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
