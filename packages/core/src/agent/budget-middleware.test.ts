import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { streamText, wrapLanguageModel } from 'ai'
import { describe, expect, it } from 'vitest'
import { createBudget } from '../budget'
import { createOfflineModel, defaultPriceTable } from '../models'
import { ADA_WALLET } from './__fixtures__/make-agent'
import { budgetMiddleware, type CallCharge, estimateInputTokens } from './budget-middleware'

describe('budgetMiddleware', () => {
  it('charges a streamed call when its stream finishes', async () => {
    const budget = createBudget({ calls: 2 })
    const charges: CallCharge[] = []
    const model = wrapLanguageModel({
      model: createOfflineModel(),
      middleware: budgetMiddleware({
        budget,
        model: 'offline:default',
        prices: defaultPriceTable,
        wallet: ADA_WALLET,
        onCharge: (charge) => charges.push(charge),
      }),
    })
    const result = streamText({ model, prompt: '[[answer:streamed]]' })
    expect(await result.text).toBe('streamed')
    expect(charges).toHaveLength(1)
    expect(budget.spent().calls).toBe(1)
    expect(budget.spentByWallet()[ADA_WALLET]?.tokens).toBe(charges[0]?.tokens)
    expect(budget.remaining().calls).toBe(1)
  })

  it('gives a failed streamed call its reservation back', async () => {
    const budget = createBudget({ calls: 1 })
    const model = wrapLanguageModel({
      model: createOfflineModel(),
      middleware: budgetMiddleware({ budget, model: 'offline:default', prices: defaultPriceTable }),
    })
    const errors: unknown[] = []
    const result = streamText({
      model,
      prompt: '[[fail:stream broke]]',
      maxRetries: 0,
      onError: ({ error }) => {
        errors.push(error)
      },
    })
    await result.consumeStream()
    expect(String(errors[0])).toContain('stream broke')
    expect(budget.spent().calls).toBe(0)
    expect(budget.remaining().calls).toBe(1)
  })
})

/** The offline model, whose stream errors right after its first text delta. */
function breakingModel(): LanguageModelV3 {
  const inner = createOfflineModel()
  return {
    ...inner,
    specificationVersion: 'v3',
    provider: 'offline',
    modelId: 'default',
    supportedUrls: {},
    doGenerate: (options) => inner.doGenerate(options),
    doStream: async (options) => {
      const result = await inner.doStream(options)
      const reader = result.stream.getReader()
      let sentDelta = false
      return {
        ...result,
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          async pull(controller) {
            if (sentDelta) return controller.error(new Error('connection reset'))
            const { done, value } = await reader.read()
            if (done) return controller.close()
            controller.enqueue(value)
            sentDelta = value.type === 'text-delta'
          },
        }),
      }
    },
  }
}

describe('budgetMiddleware with a stream that does not finish', () => {
  const wrap = (model: LanguageModelV3, budget: ReturnType<typeof createBudget>) =>
    wrapLanguageModel({
      model,
      middleware: budgetMiddleware({ budget, model: 'offline:default', prices: defaultPriceTable }),
    })

  it('settles what a stream that errors used, giving the rest of its reservation back', async () => {
    const budget = createBudget({ calls: 3, tokens: 100_000 })
    const result = streamText({
      model: wrap(breakingModel(), budget),
      prompt: `[[answer:${'x'.repeat(200)}]]`,
      maxRetries: 0,
      onError: () => {},
    })
    await result.consumeStream()
    const spent = budget.spent()
    const remaining = budget.remaining()
    // One call, its prompt and the one delta it sent: nothing stays reserved.
    expect(spent.calls).toBe(1)
    expect(remaining.calls).toBe(2)
    expect(remaining.tokens).toBe(100_000 - spent.tokens)
    expect(spent.tokens).toBeLessThan(100)
    expect(budget.nextRelease()).toBeUndefined()
  })

  it('settles what an aborted stream used and wakes a sibling waiting for it', async () => {
    const budget = createBudget({ calls: 3, tokens: 100_000 })
    const controller = new AbortController()
    const result = streamText({
      model: wrap(createOfflineModel(), budget),
      prompt: `[[answer:${'y'.repeat(200)}]]`,
      abortSignal: controller.signal,
      maxRetries: 0,
      onError: () => {},
    })
    let waited: Promise<void> | undefined
    for await (const _delta of result.textStream) {
      waited = budget.nextRelease()
      controller.abort(new Error('person pressed stop'))
      break
    }
    expect(waited).toBeDefined()
    await waited
    expect(budget.spent().calls).toBe(1)
    expect(budget.remaining().calls).toBe(2)
    expect(budget.remaining().tokens).toBe(100_000 - budget.spent().tokens)
    expect(budget.nextRelease()).toBeUndefined()
  })

  it('gives the whole reservation back when a stream errors before any output', async () => {
    const budget = createBudget({ calls: 3, tokens: 100_000 })
    const result = streamText({
      model: wrap(createOfflineModel(), budget),
      prompt: '[[fail:stream broke]]',
      maxRetries: 0,
      onError: () => {},
    })
    await result.consumeStream()
    expect(budget.spent().calls).toBe(0)
    expect(budget.remaining()).toMatchObject({ calls: 3, tokens: 100_000 })
  })
})

describe('estimateInputTokens', () => {
  const prompt = [{ role: 'system' as const, content: 'x'.repeat(300) }]

  it('counts exactly for the offline model', () => {
    expect(estimateInputTokens({ prompt }, 'offline:default')).toBe(75)
  })

  it('errs high for real models, counting the tool definitions sent along', () => {
    const plain = estimateInputTokens({ prompt }, 'openai:gpt-4o-mini')
    expect(plain).toBeGreaterThan(75)
    const withTools = estimateInputTokens(
      {
        prompt,
        tools: [{ type: 'function', name: 'add', inputSchema: { type: 'object', properties: {} } }],
      },
      'openai:gpt-4o-mini',
    )
    expect(withTools).toBeGreaterThan(plain)
  })
})
