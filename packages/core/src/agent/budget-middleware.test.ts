import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider'
import { countAbortControllers } from '@baton/testing/abort-controllers'
import { streamText, wrapLanguageModel } from 'ai'
import { describe, expect, it } from 'vitest'
import { createBudget } from '../budget'
import { createOfflineModel, defaultPriceTable } from '../models'
import { ADA_WALLET } from './__fixtures__/make-agent'
import { BudgetCharger } from './budget-charger'
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

describe('BudgetCharger with signalFromBudget', () => {
  const prompt = (text: string): LanguageModelV3CallOptions => ({
    prompt: [{ role: 'user', content: [{ type: 'text', text }] }],
  })
  const charger = (budget: ReturnType<typeof createBudget>) =>
    new BudgetCharger({
      budget,
      model: 'offline:default',
      prices: defaultPriceTable,
      signalFromBudget: true,
    })

  it("gives a call with no signal of its own the budget's, made only if the model reads it", async () => {
    const made = countAbortControllers()
    try {
      const budget = createBudget({ calls: 3 })
      const offline = createOfflineModel()
      // A model that never looks at its signal: none is made.
      const seen: LanguageModelV3CallOptions[] = []
      const unread: LanguageModelV3 = {
        ...offline,
        doGenerate: (call) => {
          seen.push(call)
          return offline.doGenerate({ prompt: call.prompt })
        },
      }
      await charger(budget).generate(prompt('[[answer:one]]'), unread)
      expect(made.count).toBe(0)
      expect('abortSignal' in seen[0]!).toBe(true)
      // The offline model reads it: the budget's own signal, made then.
      const result = await charger(budget).generate(prompt('[[answer:two]]'), offline)
      expect(result.content).toEqual([{ type: 'text', text: 'two' }])
      expect(made.count).toBe(1)
      expect(seen[0]!.abortSignal).toBe(budget.signal)
      expect(budget.spent().calls).toBe(2)
    } finally {
      made.restore()
    }
  })

  it('aborts a call in flight when its budget is cancelled, and gives its reservation back', async () => {
    const budget = createBudget({ calls: 2 }, { name: 'run' })
    const call = charger(budget).generate(prompt('[[sleep:20000]] slow'), createOfflineModel())
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(budget.remaining().calls).toBe(1)
    const started = Date.now()
    budget.cancel('the user stopped it')
    await expect(call).rejects.toMatchObject({
      message: 'Budget "run" was cancelled: the user stopped it.',
    })
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(budget.spent().calls).toBe(0)
  })

  it("keeps a call's own signal", async () => {
    const budget = createBudget()
    const own = new AbortController()
    const seen: (AbortSignal | undefined)[] = []
    const offline = createOfflineModel()
    const model: LanguageModelV3 = {
      ...offline,
      doGenerate: (call) => {
        seen.push(call.abortSignal)
        return offline.doGenerate(call)
      },
    }
    await charger(budget).generate({ ...prompt('hi'), abortSignal: own.signal }, model)
    expect(seen).toEqual([own.signal])
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
