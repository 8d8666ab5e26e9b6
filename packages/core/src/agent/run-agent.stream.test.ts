import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createBudget } from '../budget'
import { createInMemoryMemoryStore } from '../memory'
import { createModelRegistry, createOfflineModel } from '../models'
import { createToolRegistry } from '../tools'
import { ADA_WALLET, makeAgent } from './__fixtures__/make-agent'
import { runAgent } from './run-agent'
import type { AgentDelta } from './types'

/** A registry whose `offline` provider is the model `make` returns. */
function modelsOf(make: () => LanguageModelV3) {
  return createModelRegistry({ env: {}, providers: { offline: () => make() } })
}

/** A model that streams `parts` and then, unless `finish`, never sends anything again. */
function scriptedModel(parts: LanguageModelV3StreamPart[], finish: boolean): LanguageModelV3 {
  const inner = createOfflineModel()
  return {
    ...inner,
    specificationVersion: 'v3',
    provider: 'offline',
    modelId: 'default',
    supportedUrls: {},
    doGenerate: (options) => inner.doGenerate(options),
    // The signal is ignored on purpose: a provider that never reacts to an abort.
    doStream: async () => {
      const queue = [...parts]
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          pull(controller) {
            const part = queue.shift()
            if (part) return controller.enqueue(part)
            if (finish) return controller.close()
            return new Promise<void>(() => {})
          },
        }),
      }
    },
  }
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}

describe('runAgent with onDelta (a streamed run)', () => {
  it('hands over the text as it comes and answers what an unstreamed run answers', async () => {
    const agent = makeAgent()
    const input = `[[chunk-delay:5]] [[answer:${'streamed words '.repeat(8)}]]`
    const deltas: AgentDelta[] = []
    let finished = false
    let sawDeltaBeforeEnd = false
    const budget = createBudget({ calls: 3 })
    const running = runAgent(agent, input, {
      budget,
      onDelta: (delta) => {
        deltas.push(delta)
        if (!finished) sawDeltaBeforeEnd = true
      },
    })
    const streamed = await running
    finished = true
    const plain = await runAgent(agent, input, { budget: createBudget({ calls: 3 }) })

    expect(sawDeltaBeforeEnd).toBe(true)
    expect(deltas.length).toBeGreaterThan(3)
    expect(deltas.every((delta) => delta.type === 'text-delta' && delta.step === 0)).toBe(true)
    expect(deltas.map((delta) => (delta.type === 'text-delta' ? delta.text : '')).join('')).toBe(
      streamed.text,
    )
    expect(streamed.text).toBe(plain.text)
    expect(streamed.usage).toEqual(plain.usage)
    expect(streamed.steps.map((step) => step.usage)).toEqual(plain.steps.map((step) => step.usage))
    expect(budget.spentByWallet()[ADA_WALLET]).toMatchObject({ calls: 1 })
    expect(budget.nextRelease()).toBeUndefined()
  })

  it('hands over tool calls and tool results in order, gated by the card, then the answer', async () => {
    const toolRegistry = createToolRegistry({
      add: tool({
        inputSchema: z.object({ a: z.number(), b: z.number() }),
        execute: async ({ a, b }) => ({ sum: a + b }),
      }),
    })
    const agent = makeAgent({ tools: ['add'] })
    const deltas: AgentDelta[] = []
    const result = await runAgent(agent, 'Add [[tool:add {"a":2,"b":3}]]', {
      budget: createBudget({ calls: 4 }),
      toolRegistry,
      onDelta: (delta) => deltas.push(delta),
    })
    const kinds = deltas.map((delta) => `${delta.step}:${delta.type}`)
    expect(kinds.slice(0, 2)).toEqual(['0:tool-call', '0:tool-result'])
    expect(new Set(kinds.slice(2))).toEqual(new Set(['1:text-delta']))
    expect(deltas[0]).toMatchObject({ toolName: 'add', input: { a: 2, b: 3 } })
    expect(deltas[1]).toMatchObject({ toolName: 'add', output: { sum: 5 } })
    expect(result.text).toContain('add → {"sum":5}')
    expect(result.steps).toHaveLength(2)
  })

  it('hands over reasoning deltas apart from the text, and keeps only the text as the answer', async () => {
    const parts: LanguageModelV3StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'thinking…' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Hello' },
      { type: 'text-delta', id: 't', delta: ' there' },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
    ]
    const deltas: AgentDelta[] = []
    const budget = createBudget({ calls: 2 })
    const result = await runAgent(makeAgent(), 'hi', {
      budget,
      models: modelsOf(() => scriptedModel(parts, true)),
      onDelta: (delta) => deltas.push(delta),
    })
    expect(deltas.map((delta) => delta.type)).toEqual([
      'reasoning-delta',
      'text-delta',
      'text-delta',
    ])
    expect(result.text).toBe('Hello there')
    // The usage of the finish part is what is charged.
    expect(budget.spent()).toMatchObject({ calls: 1, tokens: 15 })
  })

  it('appends a streamed exchange to the agent memory', async () => {
    const memory = createInMemoryMemoryStore()
    await runAgent(makeAgent(), '[[answer:remember me]]', {
      budget: createBudget(),
      memory,
      onDelta: () => {},
    })
    const kept = await memory.read(ADA_WALLET, { limit: 5 })
    expect(kept.map((entry) => entry.content)).toContain('remember me')
  })

  it('gives the reservation back the moment the caller aborts, even when the provider ignores the signal', async () => {
    const parts: LanguageModelV3StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'a first few words' },
    ]
    const budget = createBudget({ calls: 2, tokens: 100_000 })
    const controller = new AbortController()
    const running = runAgent(makeAgent(), 'hi', {
      budget,
      signal: controller.signal,
      models: modelsOf(() => scriptedModel(parts, false)),
      onDelta: () => controller.abort(new Error('person pressed stop')),
    })
    await expect(running).rejects.toThrow('person pressed stop')
    // The call used its input and one delta; the rest of its reservation is free again.
    expect(budget.nextRelease()).toBeUndefined()
    expect(budget.spent().calls).toBe(1)
    expect(budget.remaining().calls).toBe(1)
    expect(budget.remaining().tokens).toBe(100_000 - budget.spent().tokens)
    expect(budget.spent().tokens).toBeLessThan(100)
  })

  it('releases the whole reservation when the budget itself is cancelled before any output', async () => {
    const budget = createBudget({ calls: 2 })
    const running = runAgent(makeAgent(), 'hi', {
      budget,
      models: modelsOf(() => scriptedModel([{ type: 'stream-start', warnings: [] }], false)),
      onDelta: () => {},
    })
    setTimeout(() => budget.cancel('the run was cancelled'), 20)
    await expect(running).rejects.toThrow(/cancelled/)
    expect(budget.spent().calls).toBe(0)
    expect(budget.nextRelease()).toBeUndefined()
  })

  it('fails with the provider error of an error part, giving the reservation back', async () => {
    const parts: LanguageModelV3StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'error', error: new Error('overloaded') },
    ]
    const budget = createBudget({ calls: 2 })
    const running = runAgent(makeAgent(), 'hi', {
      budget,
      models: modelsOf(() => scriptedModel(parts, false)),
      maxRetries: 0,
      onDelta: () => {},
    })
    await expect(running).rejects.toMatchObject({ code: 'AGENT_RUN_FAILED' })
    expect(budget.spent().calls).toBe(0)
    expect(budget.remaining().calls).toBe(2)
  })
})
