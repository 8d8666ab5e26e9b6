import { type ProviderServer, startProviderServer } from '@baton/testing/provider-server'
import { streamText, wrapLanguageModel } from 'ai'
import { describe, expect, it } from 'vitest'
import { makeAgent } from '../agent/__fixtures__/make-agent'
import { AgentRunError } from '../agent/agent-errors'
import { budgetMiddleware } from '../agent/budget-middleware'
import { runAgent } from '../agent/run-agent'
import { createBudget } from '../budget'
import type { BatonError } from '../errors'
import { createModelRegistry } from './create-model-registry'
import { ModelRateLimitedError, ModelUnavailableError } from './model-errors'

const providers = [
  {
    ref: 'openai:gpt-4o-mini',
    env: (url: string) => ({ OPENAI_API_KEY: 'sk-retry-test', OPENAI_BASE_URL: `${url}/v1` }),
  },
  {
    ref: 'anthropic:claude-haiku-4-5',
    env: (url: string) => ({ ANTHROPIC_API_KEY: 'sk-retry-test', ANTHROPIC_BASE_URL: `${url}/v1` }),
  },
  {
    ref: 'openai-compatible:tiny-model',
    env: (url: string) => ({ BATON_OPENAI_BASE_URL: `${url}/v1` }),
  },
  { ref: 'ollama:llama3.2', env: (url: string) => ({ OLLAMA_BASE_URL: `${url}/api` }) },
]

/** Runs a test against a fixture server of its own, closed after it (tests run concurrently). */
async function withServer(test: (server: ProviderServer) => Promise<void>) {
  const server = await startProviderServer()
  try {
    await test(server)
  } finally {
    await server.close()
  }
}

const now = { status: 429, headers: { 'retry-after': '0' } }

// Every test has a fixture server of its own, so they all run at once: most of them wait.
describe.concurrent('provider retries', () => {
  describe.each(providers)('retries of $ref', ({ ref, env }) => {
    const agent = makeAgent({ model: ref })

    it('retries a 429 and a 500 and answers, charging the one call that answered', async () => {
      await withServer(async (server) => {
        server.script(now, { status: 500, headers: { 'retry-after': '0' } }, { text: 'Third time' })
        const budget = createBudget({ calls: 1 })
        const models = createModelRegistry({ env: env(server.url) })
        const result = await runAgent(agent, 'Hello', { budget, models })
        expect(result.text).toBe('Third time')
        expect(server.requests).toHaveLength(3)
        expect(budget.spent().calls).toBe(1)
      })
    })

    it('gives up after its retries with MODEL_RATE_LIMITED, charging nothing', async () => {
      await withServer(async (server) => {
        server.script(now, now, now, { text: 'too late' })
        const budget = createBudget({ calls: 3 })
        const models = createModelRegistry({ env: env(server.url) })
        const error = (await runAgent(agent, 'Hello', { budget, models }).catch(
          (e) => e,
        )) as BatonError
        expect(error).toBeInstanceOf(ModelRateLimitedError)
        expect(error.code).toBe('MODEL_RATE_LIMITED')
        expect(error.details).toMatchObject({ ref, status: 429, attempts: 3, retryAfterSeconds: 0 })
        expect(error.message).toContain('on all 3 attempts')
        expect(server.requests).toHaveLength(3)
        expect(budget.spent()).toMatchObject({ calls: 0, tokens: 0, costUsd: 0 })
      })
    })
  })

  describe('retries of a network provider', () => {
    const ref = 'openai-compatible:tiny-model'
    const agent = makeAgent({ model: ref })
    const registry = (server: ProviderServer, maxRetries?: number) =>
      createModelRegistry({
        env: { BATON_OPENAI_BASE_URL: `${server.url}/v1` },
        ...(maxRetries === undefined ? {} : { maxRetries }),
      })
    const gap = (server: ProviderServer) =>
      (server.requests[1]?.receivedAt ?? Number.NaN) - (server.requests[0]?.receivedAt ?? 0)

    it('takes its number of retries from the run, the registry, or 2', async () => {
      await withServer(async (server) => {
        const fail = { status: 500, headers: { 'retry-after': '0' } }
        server.script(fail, fail)
        const budget = createBudget({ calls: 3 })
        const run = runAgent(agent, 'Hello', { budget, models: registry(server, 5), maxRetries: 1 })
        const error = (await run.catch((e) => e)) as BatonError
        expect(error).toBeInstanceOf(ModelUnavailableError)
        expect(error.code).toBe('MODEL_UNAVAILABLE')
        expect(error.details).toMatchObject({ status: 500, attempts: 2 })
        expect(server.requests).toHaveLength(2)

        server.requests.length = 0
        server.script(fail, fail)
        const once = runAgent(agent, 'Hello', { budget, models: registry(server, 1) })
        await expect(once).rejects.toMatchObject({ details: { attempts: 2 } })
      })
    })

    it('does not retry a 400: the run fails with the SDK error wrapped, naming the status', async () => {
      await withServer(async (server) => {
        server.script({ status: 400, message: 'context_length_exceeded' }, { text: 'never' })
        const budget = createBudget({ calls: 3 })
        const run = runAgent(agent, 'Hello', { budget, models: registry(server) })
        const error = (await run.catch((e) => e)) as BatonError
        expect(error).toBeInstanceOf(AgentRunError)
        expect(error.message).toContain('(HTTP 400): context_length_exceeded')
        expect(server.requests).toHaveLength(1)
        expect(budget.spent().calls).toBe(0)
      })
    })

    it('retries the request of a stream until the provider answers with one', async () => {
      await withServer(async (server) => {
        server.script(now, { text: 'Streamed after a retry' })
        const result = streamText({ model: registry(server).languageModel(ref), prompt: 'Hello' })
        expect(await result.text).toBe('Streamed after a retry')
        expect(server.requests.map((request) => request.stream)).toEqual([true, true])
      })
    })

    it('reports a provider it cannot reach as MODEL_UNAVAILABLE with no HTTP status', async () => {
      const server = await startProviderServer()
      const models = registry(server, 0)
      // Nothing listens on its port any more.
      await server.close()
      const budget = createBudget({ calls: 1 })
      const error = (await runAgent(agent, 'Hello', { budget, models }).catch(
        (e) => e,
      )) as BatonError
      expect(error).toBeInstanceOf(ModelUnavailableError)
      expect(error.message).toContain('(no answer)')
      expect(error.details).toMatchObject({ ref, attempts: 1 })
      expect(error.details.status).toBeUndefined()
      // Why, in words of its own: the socket's message names where the provider is, which a
      // caller of someone else's agent is not told (the cause, for the log, keeps it).
      expect(error.shortMessage).toMatch(/: cannot connect: the connection was refused$/)
      const { host, port } = new URL(server.url)
      for (const told of [error.message, JSON.stringify(error.details)]) {
        expect(told).not.toContain(host)
        expect(told).not.toContain(port)
      }
      expect(String((error.cause as Error).cause)).toContain(port)
    })

    it('stops waiting out a Retry-After when the run is aborted', async () => {
      await withServer(async (server) => {
        server.script({ status: 429, headers: { 'retry-after': '30' } }, { text: 'never' })
        const controller = new AbortController()
        const run = runAgent(agent, 'Hello', {
          budget: createBudget({ calls: 1 }),
          models: registry(server),
          signal: controller.signal,
        })
        while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
        const reason = new Error('the person cancelled')
        controller.abort(reason)
        await expect(run).rejects.toBe(reason)
        expect(server.requests).toHaveLength(1)
      })
    })

    // The SDK's own backoff starts at 2 s: waits longer than that can only come from the header.
    describe('waits', () => {
      it('as long as Retry-After says in seconds', async () => {
        await withServer(async (server) => {
          server.script({ status: 429, headers: { 'retry-after': '3' } }, { text: 'ok' })
          await runAgent(agent, 'Hello', {
            budget: createBudget({ calls: 1 }),
            models: registry(server),
          })
          expect(gap(server)).toBeGreaterThanOrEqual(2900)
        })
      })

      it('until the HTTP-date Retry-After names', async () => {
        await withServer(async (server) => {
          // HTTP-dates have whole seconds: three to four seconds from now.
          const date = new Date((Math.floor(Date.now() / 1000) + 4) * 1000).toUTCString()
          server.script({ status: 503, headers: { 'retry-after': date } }, { text: 'ok' })
          await runAgent(agent, 'Hello', {
            budget: createBudget({ calls: 1 }),
            models: registry(server),
          })
          expect(gap(server)).toBeGreaterThanOrEqual(2900)
        })
      })

      it('with exponential backoff when the provider says nothing', async () => {
        await withServer(async (server) => {
          server.script({ status: 500 }, { text: 'ok' })
          await runAgent(agent, 'Hello', {
            budget: createBudget({ calls: 1 }),
            models: registry(server),
          })
          expect(gap(server)).toBeGreaterThanOrEqual(1900)
        })
      })
    })
  })

  describe('a stream that fails after the provider answered (Anthropic)', () => {
    const ref = 'anthropic:claude-haiku-4-5'
    const overloaded = { type: 'overloaded_error', message: 'Overloaded' }
    const registry = (server: ProviderServer) =>
      createModelRegistry({
        env: { ANTHROPIC_API_KEY: 'sk-ant-stream-test', ANTHROPIC_BASE_URL: `${server.url}/v1` },
      })

    it('is retried when the error is its first event (HTTP 200, then overloaded_error)', async () => {
      await withServer(async (server) => {
        server.script({ streamError: overloaded }, { text: 'Second try' })
        const result = streamText({ model: registry(server).languageModel(ref), prompt: 'Hello' })
        expect(await result.text).toBe('Second try')
        expect(server.requests).toHaveLength(2)
      })
    })

    it('fails with MODEL_UNAVAILABLE (mid-stream) after the text it sent, and settles the budget', async () => {
      await withServer(async (server) => {
        server.script({ streamError: overloaded, chunks: ['Half ', 'way '] })
        const budget = createBudget({ calls: 2 })
        const model = wrapLanguageModel({
          model: registry(server).languageModel(ref),
          middleware: budgetMiddleware({ budget, model: ref, prices: {} }),
        })
        let failure: unknown
        const result = streamText({
          model,
          prompt: 'Hello',
          onError: ({ error }) => {
            failure = error
          },
        })
        const received: string[] = []
        for await (const piece of result.textStream) received.push(piece)

        expect(received).toEqual(['Half ', 'way '])
        expect(failure).toBeInstanceOf(ModelUnavailableError)
        expect((failure as BatonError).details).toMatchObject({ ref, midStream: true, attempts: 1 })
        expect((failure as Error).message).toContain('its stream broke off')
        expect((failure as Error).message).toContain('overloaded_error: Overloaded')
        // Not replayed: part of the answer was out. The call is charged, not left reserved.
        expect(server.requests).toHaveLength(1)
        expect(budget.spent().calls).toBe(1)
        expect(budget.nextRelease()).toBeUndefined()
      })
    })
  })
})
