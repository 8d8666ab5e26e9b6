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
