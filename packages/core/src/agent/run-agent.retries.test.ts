import { APICallError, type LanguageModelV3 } from '@ai-sdk/provider'
import { describe, expect, it } from 'vitest'
import { createBudget } from '../budget'
import { createModelRegistry, createOfflineModel } from '../models'
import { makeAgent } from './__fixtures__/make-agent'
import { AgentRunError } from './agent-errors'
import { runAgent } from './run-agent'

function failure(retryable: boolean) {
  return new APICallError({
    message: retryable ? 'overloaded' : 'bad request',
    url: 'https://provider.example/v1/chat',
    requestBodyValues: {},
    statusCode: retryable ? 529 : 400,
    // Retried after 1 ms instead of the default back-off of seconds.
    responseHeaders: { 'retry-after-ms': '1' },
    isRetryable: retryable,
  })
}

/** An offline model whose first `failures` calls fail (thrown at once when `sync`). */
function failingModels(failures: number, options: { retryable: boolean; sync?: boolean }) {
  let calls = 0
  const models = createModelRegistry({
    env: {},
    providers: {
      offline: (modelId): LanguageModelV3 => {
        const inner = createOfflineModel(modelId)
        return {
          specificationVersion: 'v3',
          provider: 'offline',
          modelId,
          supportedUrls: {},
          doGenerate: (callOptions) => {
            calls += 1
            if (calls > failures) return inner.doGenerate(callOptions)
            if (options.sync) throw failure(options.retryable)
            return Promise.reject(failure(options.retryable))
          },
          doStream: (callOptions) => inner.doStream(callOptions),
        }
      },
    },
  })
  return { models, calls: () => calls }
}

describe('runAgent retries', () => {
  it('retries a retryable provider error and answers once the provider does', async () => {
    const { models, calls } = failingModels(2, { retryable: true })
    const budget = createBudget()
    const result = await runAgent(makeAgent(), 'Hi', { budget, models })
    expect(calls()).toBe(3)
    expect(result.text.length).toBeGreaterThan(0)
    // Each failed attempt's reservation was released: one call charged.
    expect(budget.spent().calls).toBe(1)
    expect(result.usage.calls).toBe(1)
  })

  it('retries an error thrown at once, not only a rejected call', async () => {
    const { models, calls } = failingModels(1, { retryable: true, sync: true })
    const result = await runAgent(makeAgent(), 'Hi', { budget: createBudget(), models })
    expect(calls()).toBe(2)
    expect(result.text.length).toBeGreaterThan(0)
  })

  it('gives up after maxRetries retries with the SDK retry error', async () => {
    const { models, calls } = failingModels(5, { retryable: true })
    const run = runAgent(makeAgent(), 'Hi', { budget: createBudget(), models, maxRetries: 1 })
    const error = await run.catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(AgentRunError)
    expect(String((error as AgentRunError).cause)).toMatch(/Failed after 2 attempts/)
    expect(calls()).toBe(2)
  })

  it('does not retry an error that is not retryable, nor any with maxRetries 0', async () => {
    const notRetryable = failingModels(1, { retryable: false })
    await expect(
      runAgent(makeAgent(), 'Hi', { budget: createBudget(), models: notRetryable.models }),
    ).rejects.toThrow(AgentRunError)
    expect(notRetryable.calls()).toBe(1)

    const noRetries = failingModels(1, { retryable: true })
    const budget = createBudget()
    const run = runAgent(makeAgent(), 'Hi', { budget, models: noRetries.models, maxRetries: 0 })
    const error = await run.catch((caught: unknown) => caught)
    expect((error as AgentRunError).cause).toBeInstanceOf(APICallError)
    expect(noRetries.calls()).toBe(1)
    expect(budget.spent().calls).toBe(0)
  })
})
