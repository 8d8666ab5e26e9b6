import {
  type ProviderServer,
  type RecordedRequest,
  startProviderServer,
} from '@baton/testing/provider-server'
import { stepCountIs, streamText, tool, wrapLanguageModel } from 'ai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ADA_WALLET, makeAgent } from '../../agent/__fixtures__/make-agent'
import { budgetMiddleware } from '../../agent/budget-middleware'
import { runAgent } from '../../agent/run-agent'
import { createBudget } from '../../budget'
import { createToolRegistry } from '../../tools'
import { createModelRegistry } from '../create-model-registry'
import { priceUsage } from '../price-table'
import type { ModelRegistry, PriceTable } from '../types'

/** How one provider's requests look on the wire, for the shared tests to read them. */
export type ProviderSpec = {
  /** The card's model, e.g. `openai:gpt-4o-mini`. */
  ref: string
  /** The provider API its requests must reach. */
  api: RecordedRequest['api']
  /** The key the registry is given and the fixture demands (none: no key is sent). */
  apiKey?: string
  /** The registry's environment, pointing the provider at the fixture. */
  env(server: ProviderServer): Record<string, string>
  prices?: PriceTable
  system(body: RecordedRequest['body']): string | undefined
  lastUserText(body: RecordedRequest['body']): string | undefined
  toolNames(body: RecordedRequest['body']): string[]
  /** The tool result a follow-up request carries back: its call id and output. */
  toolResult(body: RecordedRequest['body']): { callId: string; output: unknown } | undefined
  /** The call id the fixture gave the first tool call of request `sequence` (none: the provider makes one up). */
  toolCallId?(sequence: number): string
  /** The output-token cap the request sent. */
  maxOutputTokens(body: RecordedRequest['body']): number | undefined
  /** The sampling temperature the request sent. */
  temperature(body: RecordedRequest['body']): number | undefined
}

const add = tool({
  description: 'Adds two numbers.',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => ({ sum: a + b }),
})

/**
 * The tests every provider passes against the fixture server: a plain run, streamed text, a
 * tool round trip (whole and streamed), and the budget charged with the usage it reports.
 *
 * @example
 * describeProviderOnTheWire({ ref: 'ollama:llama3.2', api: 'ollama-chat', ... })
 */
export function describeProviderOnTheWire(spec: ProviderSpec) {
  describe(`${spec.ref} on the wire`, () => {
    let server: ProviderServer
    let models: ModelRegistry
    const price = (inputTokens: number, outputTokens: number) =>
      priceUsage(spec.ref, { inputTokens, outputTokens }, models.prices)

    beforeAll(async () => {
      server = await startProviderServer(spec.apiKey ? { apiKey: spec.apiKey } : {})
      models = createModelRegistry({
        env: spec.env(server),
        ...(spec.prices ? { prices: spec.prices } : {}),
      })
    })
    afterAll(() => server.close())
    beforeEach(() => {
      server.requests.length = 0
    })

    const agent = (tools: string[] = []) => makeAgent({ model: spec.ref, tools })

    it('runs an agent and charges the tokens the provider reports at the table price', async () => {
      server.script({
        text: 'Hello from the wire',
        usage: { inputTokens: 1200, outputTokens: 300 },
      })
      const budget = createBudget({ calls: 3, cost: 1 })
      const result = await runAgent(agent(), 'Say hello', { budget, models })

      expect(result.text).toBe('Hello from the wire')
      expect(result.usage).toEqual({ calls: 1, tokens: 1500, costUsd: price(1200, 300) })
      expect(budget.spentByWallet()[ADA_WALLET]).toEqual(result.usage)
      const [request] = server.requests
      expect(server.requests).toHaveLength(1)
      expect(request).toMatchObject({ api: spec.api, model: spec.ref.split(':')[1], stream: false })
      expect(spec.system(request?.body)).toBe('You are Ada, a worker agent. Adds numbers.')
      expect(spec.lastUserText(request?.body)).toBe('Say hello')
      // The budget's cap on the answer reaches the provider.
      expect(spec.maxOutputTokens(request?.body)).toBeGreaterThan(0)
      // And so does the card's temperature (0.2 unless the card says otherwise).
      expect(spec.temperature(request?.body)).toBe(0.2)
      if (spec.apiKey) expect(request?.credential.is(spec.apiKey)).toBe(true)
      else expect(request?.credential.present).toBe(false)
    })

    it('streams text piece by piece and settles the budget with the streamed usage', async () => {
      const chunks = ['Streaming ', 'from ', 'the ', 'wire']
      server.script({ text: chunks.join(''), chunks, usage: { inputTokens: 40, outputTokens: 8 } })
      const budget = createBudget({ calls: 1, cost: 1 })
      const model = wrapLanguageModel({
        model: models.languageModel(spec.ref),
        middleware: budgetMiddleware({ budget, model: spec.ref, prices: models.prices ?? {} }),
      })
      const result = streamText({ model, prompt: 'Stream something' })
      const received: string[] = []
      for await (const piece of result.textStream) received.push(piece)

      expect(received).toEqual(chunks)
      expect(await result.usage).toMatchObject({ inputTokens: 40, outputTokens: 8 })
      expect(budget.spent()).toMatchObject({ calls: 1, tokens: 48, costUsd: price(40, 8) })
      expect(server.requests.map((request) => request.stream)).toEqual([true])
      // Chat Completions streams report usage only when asked to.
      if (spec.api === 'openai-chat') {
        expect(server.requests[0]?.body.stream_options).toEqual({ include_usage: true })
      }
    })

    it('runs a tool round trip: the model asks for a tool, gets its result and answers', async () => {
      server.script(
        {
          toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }],
          usage: { inputTokens: 90, outputTokens: 15 },
        },
        { text: 'The sum is 5.', usage: { inputTokens: 130, outputTokens: 6 } },
      )
      const budget = createBudget({ calls: 4, cost: 1 })
      const result = await runAgent(agent(['add']), 'Add 2 and 3', {
        budget,
        models,
        toolRegistry: createToolRegistry({ add }),
      })

      expect(result.text).toBe('The sum is 5.')
      const callId = result.steps[0]?.toolCalls[0]?.toolCallId
      if (spec.toolCallId) expect(callId).toBe(spec.toolCallId(1))
      expect(result.steps.map((step) => step.toolResults)).toEqual([
        [{ toolCallId: callId, toolName: 'add', output: { sum: 5 } }],
        [],
      ])
      expect(result.usage).toEqual({
        calls: 2,
        tokens: 241,
        costUsd: budget.spent().costUsd,
      })
      expect(budget.spent().costUsd).toBeCloseTo(price(90, 15) + price(130, 6), 12)
      const [first, second] = server.requests
      expect(server.requests).toHaveLength(2)
      expect(spec.toolNames(first?.body)).toEqual(['add'])
      expect(spec.toolResult(first?.body)).toBeUndefined()
      const sent = spec.toolResult(second?.body)
      expect(sent?.callId).toBe(callId)
      expect(JSON.parse(String(sent?.output))).toEqual({ sum: 5 })
    })

    it('streams a tool round trip with streamText', async () => {
      server.script(
        {
          toolCalls: [{ name: 'add', input: { a: 20, b: 22 } }],
          usage: { inputTokens: 50, outputTokens: 10 },
        },
        { text: 'It is 42.', usage: { inputTokens: 70, outputTokens: 4 } },
      )
      const result = streamText({
        model: models.languageModel(spec.ref),
        prompt: 'Add 20 and 22',
        tools: { add },
        stopWhen: stepCountIs(2),
      })
      const parts: string[] = []
      let callId: string | undefined
      for await (const part of result.fullStream) {
        if (part.type === 'tool-call') callId = part.toolCallId
        if (part.type === 'tool-call')
          parts.push(`call ${part.toolName} ${JSON.stringify(part.input)}`)
        if (part.type === 'tool-result') parts.push(`result ${JSON.stringify(part.output)}`)
      }

      expect(parts).toEqual(['call add {"a":20,"b":22}', 'result {"sum":42}'])
      expect(await result.text).toBe('It is 42.')
      expect(await result.totalUsage).toMatchObject({ inputTokens: 120, outputTokens: 14 })
      const sent = spec.toolResult(server.requests[1]?.body)
      if (spec.toolCallId) expect(callId).toBe(spec.toolCallId(1))
      expect(sent?.callId).toBe(callId)
      expect(JSON.parse(String(sent?.output))).toEqual({ sum: 42 })
    })
  })
}
