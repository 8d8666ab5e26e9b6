import { type ProviderServer, startProviderServer } from '@baton/testing/provider-server'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createBudget } from '../budget'
import { createModelRegistry } from '../models'
import { makeAgent } from './__fixtures__/make-agent'
import { runAgent } from './run-agent'

// What every provider does on the wire (text, streams, tools, usage, retries, a refused key)
// is tested beside the model registry; these are the budget's limits on a real endpoint.
describe('runAgent with an OpenAI-compatible endpoint', () => {
  let server: ProviderServer
  beforeAll(async () => {
    server = await startProviderServer()
  })
  afterAll(() => server.close())
  beforeEach(() => {
    server.requests.length = 0
  })

  const models = () =>
    createModelRegistry({
      env: { BATON_OPENAI_BASE_URL: `${server.url}/v1` },
      prices: { 'openai-compatible:tiny-model': { inputPerMTok: 1, outputPerMTok: 2 } },
    })
  const agent = makeAgent({ model: 'openai-compatible:tiny-model', tools: [] })

  it('asks the endpoint for no more output tokens than the budget has left', async () => {
    server.script({ text: 'Hello' })
    const budget = createBudget({ tokens: 5000 })
    await expect(runAgent(agent, 'Say hello', { budget, models: models() })).resolves.toBeTruthy()
    const limit = server.requests[0]?.body.max_tokens as number
    expect(limit).toBeGreaterThan(0)
    expect(limit).toBeLessThan(5000)
  })

  it('keeps a cost budget even when the endpoint answers with every output token it was allowed', async () => {
    // The prompt is billed at less than the estimate, so only the output cap stands in the way.
    server.script((request) => ({
      text: 'Hello',
      usage: { inputTokens: 10, outputTokens: request.body.max_tokens },
    }))
    const budget = createBudget({ cost: 0.002 })
    const result = await runAgent(agent, 'Say hello', { budget, models: models() })
    expect(result.usage.tokens - 10).toBe(server.requests[0]?.body.max_tokens)
    expect(budget.spent().costUsd).toBeLessThanOrEqual(0.002 + 1e-12)
    expect(budget.spent().costUsd).toBeGreaterThan(0.0019)
  })

  it('charges the whole answer allowance when the endpoint reports no usage', async () => {
    server.script({ text: 'Hello', usage: null })
    const budget = createBudget({ tokens: 5000 })
    const result = await runAgent(agent, 'Say hello', { budget, models: models() })
    const allowance = server.requests[0]?.body.max_tokens as number
    expect(allowance).toBeGreaterThan(0)
    // The prompt is charged at its estimate, the answer at the most it was allowed.
    expect(result.usage.tokens).toBeGreaterThan(allowance)
    expect(budget.spent().tokens).toBe(result.usage.tokens)
    expect(budget.spent().tokens).toBeLessThanOrEqual(5000)
  })
})
