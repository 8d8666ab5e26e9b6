import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider'
import { countAbortControllers } from '@baton/testing/abort-controllers'
import { Output, tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { BudgetCancelledError, BudgetExceededError, createBudget } from '../budget'
import { ValidationError } from '../errors/baton-error'
import { createInMemoryMemoryStore } from '../memory'
import { createModelRegistry, createOfflineModel, OfflineModelError, priceUsage } from '../models'
import { createToolRegistry, ToolNotAllowedError, UnknownToolError } from '../tools'
import { ADA_WALLET, makeAgent } from './__fixtures__/make-agent'
import { runAgent } from './run-agent'

function addTools() {
  const calls: { a: number; b: number }[] = []
  const toolRegistry = createToolRegistry({
    add: tool({
      description: 'Adds two numbers.',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: async (input) => {
        calls.push(input)
        return { sum: input.a + input.b }
      },
    }),
    shout: tool({
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }) => text.toUpperCase(),
    }),
  })
  return { toolRegistry, calls }
}

/** An offline model that records the prompt of every call. */
function recordingModels() {
  const prompts: LanguageModelV3CallOptions['prompt'][] = []
  const models = createModelRegistry({
    env: {},
    providers: {
      offline: (modelId): LanguageModelV3 => {
        const inner = createOfflineModel(modelId)
        return {
          ...inner,
          specificationVersion: 'v3',
          provider: 'offline',
          modelId,
          supportedUrls: {},
          doGenerate: (options) => {
            prompts.push(options.prompt)
            return inner.doGenerate(options)
          },
          doStream: (options) => inner.doStream(options),
        }
      },
    },
  })
  return { models, prompts }
}

const tenTools = (count: number) =>
  Array.from({ length: count }, (_, i) => `[[tool:add {"a":${i},"b":1}]]`).join(' ')

describe('runAgent', () => {
  it('answers with the offline echo and charges the call to the wallet', async () => {
    const budget = createBudget({ calls: 5 })
    const result = await runAgent(makeAgent(), 'Summarize the report', { budget })
    expect(result.text).toBe('Ada (worker): Here is my response to "Summarize the report".')
    expect(result.finishReason).toBe('stop')
    expect(result.wallet).toBe(ADA_WALLET)
    expect(result.steps).toHaveLength(1)
    expect(result.usage.calls).toBe(1)
    const spent = budget.spent()
    expect({ calls: spent.calls, tokens: spent.tokens, costUsd: spent.costUsd }).toEqual(
      result.usage,
    )
    expect(budget.spentByWallet()).toEqual({ [ADA_WALLET]: result.usage })
  })

  it('prices each call from the offline usage and the price table', async () => {
    const budget = createBudget()
    const system = 'You are Ada, a worker agent. Adds numbers.'
    const input = 'a'.repeat(400)
    const result = await runAgent(makeAgent(), input, { budget })
    const inputTokens = Math.ceil((system.length + input.length) / 4)
    const outputTokens = Math.ceil(result.text.length / 4)
    expect(result.usage.tokens).toBe(inputTokens + outputTokens)
    expect(result.usage.costUsd).toBeCloseTo(
      priceUsage('offline:default', { inputTokens, outputTokens }),
      12,
    )
    const doubled = await runAgent(makeAgent(), input, {
      budget: createBudget(),
      prices: { 'offline:*': { inputPerMTok: 0.2, outputPerMTok: 0.8 } },
    })
    expect(doubled.usage.costUsd).toBeCloseTo(result.usage.costUsd * 2, 12)
  })

  it('uses the persona override, else the card persona, in the system prompt', async () => {
    const agent = makeAgent({ persona: 'Be formal.' })
    const own = await runAgent(agent, 'hi', { budget: createBudget() })
    expect(own.text).toContain('Persona: Be formal.')
    const override = await runAgent(agent, 'hi', { budget: createBudget(), persona: 'Be brief.' })
    expect(override.text).toContain('Persona: Be brief.')
  })

  it('calls a registered tool once per directive and reports each step', async () => {
    const { toolRegistry, calls } = addTools()
    const seen: number[] = []
    const budget = createBudget()
    const result = await runAgent(
      makeAgent({ tools: ['add'] }),
      'Add [[tool:add {"a":1,"b":2}]] [[tool:add {"a":5,"b":5}]]',
      { budget, toolRegistry, onStep: (step) => seen.push(step.index) },
    )
    expect(calls).toEqual([
      { a: 1, b: 2 },
      { a: 5, b: 5 },
    ])
    expect(seen).toEqual([0, 1, 2])
    expect(result.steps[0]?.toolCalls).toEqual([
      { toolCallId: 'offline-call-1', toolName: 'add', input: { a: 1, b: 2 } },
    ])
    expect(result.steps[1]?.toolResults).toEqual([
      { toolCallId: 'offline-call-2', toolName: 'add', output: { sum: 10 } },
    ])
    expect(result.text).toContain('add → {"sum":3}; add → {"sum":10}')
    expect(result.usage.calls).toBe(3)
    const stepTotal = result.steps.reduce((sum, step) => sum + step.usage.tokens, 0)
    expect(stepTotal).toBe(result.usage.tokens)
    expect(budget.spent().tokens).toBe(result.usage.tokens)
  })

  it('sums the cost of its calls as the budget books it, without float noise', async () => {
    const { toolRegistry } = addTools()
    const budget = createBudget()
    const result = await runAgent(makeAgent({ tools: ['add'] }), tenTools(2), {
      budget,
      toolRegistry,
    })
    const floatSum = result.steps.reduce((sum, step) => sum + step.usage.costUsd, 0)
    // The float sum of these prices carries noise; the run's total must not.
    expect(floatSum).not.toBe(budget.spent().costUsd)
    expect(result.usage.costUsd).toBe(budget.spent().costUsd)
  })

  it('answers exactly the [[answer:]] text and the [[json:]] text', async () => {
    const budget = createBudget()
    expect((await runAgent(makeAgent(), '[[answer:forty-two]]', { budget })).text).toBe('forty-two')
    const json = await runAgent(makeAgent(), '[[json:{"ok":true}]]', { budget })
    expect(JSON.parse(json.text)).toEqual({ ok: true })
  })

  it('returns structured output after its tool calls when asked for one', async () => {
    const { toolRegistry } = addTools()
    const schema = z.object({ verdict: z.enum(['approve', 'reject']), score: z.number().min(1) })
    const voted = await runAgent(
      makeAgent({ tools: ['add'] }),
      '[[tool:add {"a":1,"b":1}]] Vote on the plan',
      {
        budget: createBudget(),
        toolRegistry,
        output: Output.object({ schema }),
      },
    )
    expect(voted.steps).toHaveLength(2)
    expect(voted.output).toEqual({ verdict: 'approve', score: 1 })
    const told = await runAgent(makeAgent(), 'Vote [[json:{"verdict":"reject","score":3}]]', {
      budget: createBudget(),
      output: Output.object({ schema }),
    })
    expect(told.output).toEqual({ verdict: 'reject', score: 3 })
    expect((await runAgent(makeAgent(), 'hi', { budget: createBudget() })).output).toBeUndefined()
  })

  it('binds an extra tool the card lists', async () => {
    const reads: string[] = []
    const result = await runAgent(
      makeAgent({ tools: ['read_file'] }),
      '[[tool:read_file {"path":"a.txt"}]]',
      {
        budget: createBudget(),
        toolRegistry: createToolRegistry(),
        extraTools: {
          read_file: tool({
            inputSchema: z.object({ path: z.string() }),
            execute: async ({ path }) => {
              reads.push(path)
              return 'contents'
            },
          }),
        },
      },
    )
    expect(reads).toEqual(['a.txt'])
    expect(result.text).toContain('read_file → contents')
  })

  it("hands each run's toolContext to a tool made once, and no context key when none is given", async () => {
    const seen: { context: unknown; keys: string[] }[] = []
    // One tool for every run: what differs per run comes from the context.
    const whoami = tool({
      inputSchema: z.object({}),
      execute: async (_input, options) => {
        seen.push({ context: options.experimental_context, keys: Object.keys(options) })
        return (options.experimental_context as { user?: string } | undefined)?.user ?? 'nobody'
      },
    })
    const agent = makeAgent({ tools: ['whoami'] })
    const run = (toolContext?: unknown) =>
      runAgent(agent, '[[tool:whoami {}]]', {
        budget: createBudget(),
        extraTools: { whoami },
        ...(toolContext === undefined ? {} : { toolContext }),
      })
    const [ada, grace, none] = await Promise.all([
      run({ user: 'ada' }),
      run({ user: 'grace' }),
      run(),
    ])
    expect(ada.text).toContain('whoami → ada')
    expect(grace.text).toContain('whoami → grace')
    expect(none.text).toContain('whoami → nobody')
    expect(seen.map((call) => call.context)).toEqual([
      { user: 'ada' },
      { user: 'grace' },
      undefined,
    ])
    expect(seen[0]?.keys).toContain('experimental_context')
    expect(seen[2]?.keys).not.toContain('experimental_context')
  })

  it('gates the extra tools by the card: one the card does not list is no tool of the run', async () => {
    const { toolRegistry, calls } = addTools()
    const ran: string[] = []
    const { models, prompts } = recordingModels()
    const result = await runAgent(
      makeAgent({ tools: ['add'] }),
      '[[tool:shell {"command":"rm"}]]',
      {
        budget: createBudget(),
        toolRegistry,
        models,
        extraTools: {
          shell: tool({
            inputSchema: z.object({ command: z.string() }),
            execute: async ({ command }) => {
              ran.push(command)
              return 'done'
            },
          }),
        },
      },
    )
    expect(ran).toEqual([])
    expect(calls).toEqual([])
    expect(result.steps[0]?.toolResults[0]?.output).toEqual({
      error: expect.stringMatching(/unavailable tool 'shell'\. Available tools: add\./),
    })
    expect(prompts).toHaveLength(2)
  })

  it('refuses to narrow to a tool the card does not list, before any model call', async () => {
    const { toolRegistry } = addTools()
    const budget = createBudget()
    const run = runAgent(makeAgent({ tools: ['add'] }), 'hi', {
      budget,
      toolRegistry,
      tools: ['add', 'shout'],
    })
    await expect(run).rejects.toThrow(ToolNotAllowedError)
    await expect(run).rejects.toThrow(
      'Tool "shout" is not allowed for this agent; its card lists "add".',
    )
    expect(budget.spent().calls).toBe(0)
  })

  it('refuses a card tool nobody registered', async () => {
    const { toolRegistry } = addTools()
    await expect(
      runAgent(makeAgent({ tools: ['add', 'search'] }), 'hi', {
        budget: createBudget(),
        toolRegistry,
      }),
    ).rejects.toThrow(UnknownToolError)
  })

  it("with unprovidedTools: 'skip', runs without a card tool nobody provides, and binds the ones provided", async () => {
    const { toolRegistry, calls } = addTools()
    const result = await runAgent(
      makeAgent({ tools: ['add', 'read_file'] }),
      '[[tool:add {"a":2,"b":3}]] [[tool:read_file {"path":"notes.txt"}]]',
      { budget: createBudget(), toolRegistry, unprovidedTools: 'skip' },
    )
    expect(calls).toEqual([{ a: 2, b: 3 }])
    // The tool it was not given is not offered to the model: the run goes on without it.
    const outputs = result.steps[0]?.toolResults.map((call) => [call.toolName, call.output])
    expect(outputs).toEqual([['add', { sum: 5 }]])
  })

  it('with unprovidedTools as a list, leaves out the names listed and refuses any other', async () => {
    const { toolRegistry } = addTools()
    const agent = makeAgent({ tools: ['add', 'read_file', 'search'] })
    const budget = createBudget()
    await expect(
      runAgent(agent, 'hi', { budget, toolRegistry, unprovidedTools: ['read_file'] }),
    ).rejects.toThrow('Tool "search" is not registered')
    expect(budget.spent().calls).toBe(0)
    const result = await runAgent(agent, '[[tool:add {"a":1,"b":1}]]', {
      budget,
      toolRegistry,
      unprovidedTools: ['read_file', 'search'],
    })
    expect(result.steps[0]?.toolResults.map((call) => call.output)).toEqual([{ sum: 2 }])
  })

  it('narrows the extra tools too: tools: [] lets no tool run, even one the card lists', async () => {
    const ran: string[] = []
    const budget = createBudget()
    const result = await runAgent(
      makeAgent({ tools: ['shell'] }),
      '[[tool:shell {"command":"rm"}]]',
      {
        budget,
        tools: [],
        extraTools: {
          shell: tool({
            inputSchema: z.object({ command: z.string() }),
            execute: async ({ command }) => {
              ran.push(command)
              return 'done'
            },
          }),
        },
      },
    )
    expect(ran).toEqual([])
    expect(result.steps[0]?.toolResults[0]?.output).toEqual({
      error: expect.stringContaining('shell'),
    })
  })

  it('refuses a card tool when no tool registry provides it, before any model call', async () => {
    const budget = createBudget()
    const run = runAgent(makeAgent({ tools: ['add'] }), 'hi', { budget })
    await expect(run).rejects.toBeInstanceOf(UnknownToolError)
    await expect(run).rejects.toThrow('Tool "add" is not registered. Registered tools: none.')
    expect(budget.spent().calls).toBe(0)
  })

  it('does not let the model call a tool narrowed out of the run', async () => {
    const { toolRegistry, calls } = addTools()
    const result = await runAgent(
      makeAgent({ tools: ['add', 'shout'] }),
      '[[tool:add {"a":1,"b":1}]]',
      {
        budget: createBudget(),
        toolRegistry,
        tools: ['shout'],
      },
    )
    expect(calls).toEqual([])
    expect(result.steps[0]?.toolResults[0]?.output).toEqual({
      error: expect.stringContaining('add'),
    })
  })

  it('checks a card that is not frozen again once a field it read changed', async () => {
    const agent = makeAgent()
    const budget = createBudget()
    expect((await runAgent(agent, 'Hi', { budget })).text).toContain('Hi')
    const fields = agent as unknown as Record<string, unknown>
    fields.wallet = 'not-a-wallet'
    await expect(runAgent(agent, 'Hi', { budget })).rejects.toBeInstanceOf(ValidationError)
    fields.wallet = ADA_WALLET
    ;(agent.tools as string[]).push('nobody_registered_this')
    await expect(runAgent(agent, 'Hi', { budget })).rejects.toBeInstanceOf(UnknownToolError)
  })

  it('names a bad option however well formed the others are', async () => {
    const budget = createBudget()
    const options = { budget, unprovidedTools: ['ok', 3] as unknown as string[] }
    await expect(runAgent(makeAgent(), 'Hi', options)).rejects.toThrow(/unprovidedTools/)
    await expect(runAgent(makeAgent(), 'Hi', { budget, maxRetries: 1.5 })).rejects.toThrow(
      /maxRetries/,
    )
  })

  it('stops after maxIterations model calls', async () => {
    const { toolRegistry, calls } = addTools()
    const budget = createBudget()
    const result = await runAgent(makeAgent({ tools: ['add'], maxIterations: 3 }), tenTools(5), {
      budget,
      toolRegistry,
      maxIterations: 2,
    })
    expect(result.steps).toHaveLength(2)
    expect(calls).toHaveLength(2)
    expect(result.finishReason).toBe('tool-calls')
    expect(budget.spent().calls).toBe(2)
  })

  it('never goes past the card maxIterations, whatever the run asks', async () => {
    const { toolRegistry } = addTools()
    const result = await runAgent(makeAgent({ maxIterations: 2 }), tenTools(5), {
      budget: createBudget(),
      toolRegistry,
      maxIterations: 50,
    })
    expect(result.steps).toHaveLength(2)
  })

  it('rejects with BudgetExceededError when a calls budget runs out mid-run, never overspending', async () => {
    const { toolRegistry, calls } = addTools()
    const budget = createBudget({ calls: 2 })
    const run = runAgent(makeAgent({ tools: ['add'] }), tenTools(5), { budget, toolRegistry })
    await expect(run).rejects.toBeInstanceOf(BudgetExceededError)
    expect(budget.spent().calls).toBe(2)
    expect(calls.length).toBeLessThanOrEqual(2)
    expect(budget.spentByWallet()[ADA_WALLET]?.calls).toBe(2)
  })

  it('caps the answer by the money the budget has left', async () => {
    // About 114 input tokens cost $0.0000114, leaving room for about 96 of the 100 output tokens.
    const budget = createBudget({ cost: 0.00005 })
    const result = await runAgent(makeAgent(), `[[answer:${'z'.repeat(400)}]]`, {
      budget,
    })
    expect(result.finishReason).toBe('length')
    expect(budget.spent().costUsd).toBeLessThanOrEqual(0.00005 + 1e-12)
    expect(budget.spent().costUsd).toBeGreaterThan(0.00004)
  })

  it('refuses a call whose prompt alone is larger than the tokens left', async () => {
    const budget = createBudget({ tokens: 40 })
    const run = runAgent(makeAgent(), 'q'.repeat(400), { budget })
    await expect(run).rejects.toThrow(/needs \d+ tokens but has 40 of 40 tokens left/)
    expect(budget.spent().tokens).toBe(0)
  })

  it('makes no call when the budget cannot reserve one', async () => {
    const budget = createBudget({ calls: 1 })
    budget.charge({ calls: 1 })
    await expect(runAgent(makeAgent(), 'hi', { budget })).rejects.toBeInstanceOf(
      BudgetExceededError,
    )
    expect(budget.spent().calls).toBe(1)
  })

  it('caps the answer by the tokens the budget has left', async () => {
    // About 110 tokens of prompt leave room for about 40 tokens of the 200-token answer.
    const budget = createBudget({ tokens: 150 })
    const result = await runAgent(makeAgent(), `[[answer:${'z'.repeat(400)}]]`, { budget })
    expect(result.finishReason).toBe('length')
    expect(result.usage.tokens).toBeLessThanOrEqual(150)
    expect(budget.spent().tokens).toBe(result.usage.tokens)
  })

  it('rejects with the abort reason when cancelled mid-call, charging nothing for it', async () => {
    const controller = new AbortController()
    const budget = createBudget()
    const reason = new Error('person pressed stop')
    const run = runAgent(makeAgent(), '[[sleep:20000]] slow work', {
      budget,
      signal: controller.signal,
    })
    setTimeout(() => controller.abort(reason), 50)
    await expect(run).rejects.toBe(reason)
    expect(budget.spent().calls).toBe(0)
  })

  it('aborts the model call in flight when its budget is cancelled, with no signal given', async () => {
    const budget = createBudget({}, { name: 'turn' })
    const started = Date.now()
    const run = runAgent(makeAgent(), '[[sleep:20000]] slow work', { budget })
    setTimeout(() => budget.cancel('user stopped it'), 50)
    await expect(run).rejects.toBeInstanceOf(BudgetCancelledError)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(budget.spent().calls).toBe(0)
  })

  it('makes no abort signal for a run whose model and tools never need one', async () => {
    const made = countAbortControllers()
    try {
      const offline = createOfflineModel()
      // The offline model, handed only what it answers from (naming `abortSignal` reads it).
      const blind: LanguageModelV3 = {
        ...offline,
        doGenerate: (call) => offline.doGenerate({ prompt: call.prompt }),
      }
      const models = createModelRegistry({ providers: { offline: () => blind } })
      const root = createBudget()
      for (let index = 0; index < 5; index++) {
        const result = await runAgent(makeAgent(), `[[answer:${index}]]`, {
          budget: root.child(),
          models,
        })
        expect(result.text).toBe(String(index))
      }
      expect(made.count).toBe(0)
    } finally {
      made.restore()
    }
  })

  it('rejects with BudgetCancelledError when its budget is cancelled mid-run', async () => {
    const { toolRegistry, calls } = addTools()
    const budget = createBudget()
    const run = runAgent(makeAgent({ tools: ['add'] }), `${tenTools(1)} [[sleep:200]]`, {
      budget,
      toolRegistry,
      onStep: () => budget.cancel('user stopped it'),
    })
    await expect(run).rejects.toBeInstanceOf(BudgetCancelledError)
    expect(calls.length).toBeLessThanOrEqual(1)
  })

  it('rejects with BudgetExceededError when the wall deadline passes mid-call', async () => {
    const budget = createBudget({ maxWallMs: 100 })
    const run = runAgent(makeAgent(), '[[sleep:20000]] slow', { budget })
    await expect(run).rejects.toBeInstanceOf(BudgetExceededError)
    await expect(run).rejects.toMatchObject({ dimension: 'wallMs' })
    expect(budget.spent().calls).toBe(0)
  })

  it('never lets concurrent runs on child budgets overspend their parent', async () => {
    const { toolRegistry } = addTools()
    const parent = createBudget({ calls: 3 })
    const runs = ['one', 'two', 'three'].map((name) =>
      runAgent(makeAgent({ tools: ['add'] }), tenTools(5), {
        budget: parent.child({}, { name }),
        toolRegistry,
      }),
    )
    const outcomes = await Promise.allSettled(runs)
    expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true)
    expect(parent.spent().calls).toBe(3)
  })

  it('lets concurrent runs share a cost-limited parent without starving each other', async () => {
    // A call reserves a bounded estimate, not everything the parent has left.
    const parent = createBudget({ cost: 0.1 })
    const runs = ['one', 'two', 'three'].map((name) =>
      runAgent(makeAgent(), `task ${name} [[sleep:20]]`, { budget: parent.child({}, { name }) }),
    )
    const results = await Promise.all(runs)
    expect(results.map((result) => result.usage.calls)).toEqual([1, 1, 1])
    expect(parent.spent().calls).toBe(3)
  })

  it('lets a sibling wait for the money a call in flight holds instead of failing', async () => {
    // One call reserves every cent of the parent (its 4096-token allowance costs more); it
    // settles for a few tokens, and the siblings then run on what it gave back.
    const parent = createBudget({ cost: 0.001 })
    const runs = ['one', 'two', 'three'].map((name) =>
      runAgent(makeAgent(), `task ${name} [[sleep:50]]`, { budget: parent.child({}, { name }) }),
    )
    const results = await Promise.all(runs)
    expect(results.map((result) => result.usage.calls)).toEqual([1, 1, 1])
    expect(parent.spent().costUsd).toBeLessThanOrEqual(0.001)
  })

  it('lets two of three concurrent runs on a shared calls budget succeed, failing the third alone', async () => {
    const budget = createBudget({ calls: 2 })
    const runs = ['one', 'two', 'three'].map((name) =>
      runAgent(makeAgent(), `task ${name} [[sleep:100]]`, { budget }),
    )
    const outcomes = await Promise.allSettled(runs)
    const succeeded = outcomes.filter((outcome) => outcome.status === 'fulfilled')
    const failed = outcomes.flatMap((outcome) =>
      outcome.status === 'rejected' ? [outcome.reason] : [],
    )
    expect(succeeded).toHaveLength(2)
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({ code: 'BUDGET_EXCEEDED', dimension: 'calls' })
    expect(budget.spent().calls).toBe(2)
  })

  it('runs a third call on a shared calls budget once a call in flight gives its call back', async () => {
    const budget = createBudget({ calls: 2 })
    const failing = runAgent(makeAgent(), '[[sleep:50]] [[fail:model melted]]', { budget })
    const slow = runAgent(makeAgent(), 'slow [[sleep:100]]', { budget })
    const third = runAgent(makeAgent(), 'third', { budget })
    await expect(failing).rejects.toThrow('model melted')
    await expect(slow).resolves.toMatchObject({ usage: { calls: 1 } })
    await expect(third).resolves.toMatchObject({ usage: { calls: 1 } })
    expect(budget.spent().calls).toBe(2)
  })

  it('stops waiting for a sibling when its own signal aborts, charging nothing', async () => {
    const parent = createBudget({ cost: 0.001 })
    const first = runAgent(makeAgent(), 'slow [[sleep:2000]]', { budget: parent.child() })
    const controller = new AbortController()
    const reason = new Error('person pressed stop')
    const waiting = parent.child()
    const second = runAgent(makeAgent(), 'quick', { budget: waiting, signal: controller.signal })
    setTimeout(() => controller.abort(reason), 50)
    await expect(second).rejects.toBe(reason)
    expect(waiting.spent().calls).toBe(0)
    await expect(first).resolves.toMatchObject({ usage: { calls: 1 } })
  })

  it('refuses a call whose prompt alone costs more than the money left, even with free output', async () => {
    const budget = createBudget({ cost: 0.00001 })
    const prices = { 'offline:*': { inputPerMTok: 1, outputPerMTok: 0 } }
    const run = runAgent(makeAgent(), 'q'.repeat(400), { budget, prices })
    await expect(run).rejects.toMatchObject({ code: 'BUDGET_EXCEEDED', dimension: 'costUsd' })
    expect(budget.spent()).toMatchObject({ calls: 0, costUsd: 0 })
  })

  it('refuses to start on an aborted signal', async () => {
    const budget = createBudget()
    budget.cancel('before start')
    await expect(runAgent(makeAgent(), 'hi', { budget })).rejects.toBeInstanceOf(
      BudgetCancelledError,
    )
  })

  it('surfaces a failing model call and releases its reservation', async () => {
    const budget = createBudget({ calls: 3 })
    const run = runAgent(makeAgent(), '[[fail:model melted]]', { budget })
    await expect(run).rejects.toBeInstanceOf(OfflineModelError)
    await expect(run).rejects.toThrow('model melted')
    expect(budget.spent().calls).toBe(0)
    expect(budget.remaining().calls).toBe(3)
  })

  it('keeps each agent to its own memory unless their cards name the same scope', async () => {
    const memory = createInMemoryMemoryStore()
    const { models, prompts } = recordingModels()
    const alice = makeAgent({ id: 'alice', name: 'Alice' })
    const bob = makeAgent({
      id: 'bob',
      name: 'Bob',
      wallet: '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    })
    await runAgent(alice, 'my secret is hunter2', { budget: createBudget(), memory, models })
    await runAgent(bob, 'what do you remember?', { budget: createBudget(), memory, models })
    expect(JSON.stringify(prompts[1])).not.toContain('hunter2')
    expect(await memory.read(bob.wallet)).toHaveLength(2)
    const team = { memoryScope: 'team' }
    await runAgent({ ...alice, ...team }, 'the plan is ready', {
      budget: createBudget(),
      memory,
      models,
    })
    await runAgent({ ...bob, ...team }, 'what is the plan?', {
      budget: createBudget(),
      memory,
      models,
    })
    expect(JSON.stringify(prompts[3])).toContain('the plan is ready')
  })

  it('recalls memory of its scope and appends the exchange after a run', async () => {
    const memory = createInMemoryMemoryStore()
    const { models, prompts } = recordingModels()
    const agent = makeAgent({ memoryScope: 'ada-notes' })
    const first = await runAgent(agent, 'The codeword is heron. [[answer:noted]]', {
      budget: createBudget(),
      memory,
      models,
    })
    expect(first.text).toBe('noted')
    expect(await memory.read('ada-notes')).toEqual([
      expect.objectContaining({
        role: 'user',
        content: 'The codeword is heron. [[answer:noted]]',
        wallet: ADA_WALLET,
      }),
      expect.objectContaining({ role: 'assistant', content: 'noted', wallet: ADA_WALLET }),
    ])
    const second = await runAgent(agent, 'What was the codeword?', {
      budget: createBudget(),
      memory,
      models,
    })
    // The earlier [[answer:]] is recalled as memory, not replayed as a directive.
    expect(second.text).toBe('Ada (worker): Here is my response to "What was the codeword?".')
    const recalled = JSON.stringify(prompts[1])
    expect(recalled).toContain('The codeword is heron.')
    expect(recalled).toContain('noted')
    expect(await memory.read('ada-notes')).toHaveLength(4)
    expect(await memory.read('agent')).toEqual([])
  })

  it('leaves memory untouched when the run fails', async () => {
    const memory = createInMemoryMemoryStore()
    await expect(
      runAgent(makeAgent(), '[[fail:nope]]', { budget: createBudget(), memory }),
    ).rejects.toThrow('nope')
    expect(await memory.read('agent')).toEqual([])
  })

  it('continues a conversation from the messages of the previous run', async () => {
    const { toolRegistry } = addTools()
    const first = await runAgent(makeAgent({ tools: ['add'] }), '[[tool:add {"a":2,"b":3}]]', {
      budget: createBudget(),
      toolRegistry,
    })
    const second = await runAgent(
      makeAgent({ tools: ['add'] }),
      [
        { role: 'user', content: 'start' },
        ...first.messages,
        { role: 'user', content: 'and now? [[answer:continued]]' },
      ],
      { budget: createBudget(), toolRegistry },
    )
    expect(second.text).toBe('continued')
    expect(second.steps).toHaveLength(1)
  })

  it('takes a conversation of text messages as it is, and refuses a bad message by its place', async () => {
    const agent = makeAgent()
    const plain = await runAgent(
      agent,
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '' },
        { role: 'user', content: '[[answer:ok]]' },
      ],
      { budget: createBudget() },
    )
    expect(plain.text).toBe('ok')
    for (const bad of [
      [{ role: 'tool', content: 'x' }],
      [{ role: 'user', content: 'hi' }, { role: 'user' }],
      [{ role: 'user', content: 42 }],
      [{ role: 'robot', content: 'hi' }],
      [null],
      [],
    ]) {
      const budget = createBudget()
      const error = await runAgent(agent, bad as never, { budget }).catch((caught) => caught)
      expect(error).toBeInstanceOf(ValidationError)
      expect(String(error.message)).toContain('agent input')
      expect(budget.spent().calls).toBe(0)
    }
    // Fields beyond role and content go through the AI SDK's schema, which takes these.
    const withOptions = await runAgent(
      agent,
      [{ role: 'user', content: '[[answer:yes]]', providerOptions: { offline: { note: 1 } } }],
      { budget: createBudget() },
    )
    expect(withOptions.text).toBe('yes')
  })

  it('attributes spend to the checksummed wallet, whatever case the card uses', async () => {
    const agent = { ...makeAgent(), wallet: ADA_WALLET.toLowerCase() } as ReturnType<
      typeof makeAgent
    >
    const budget = createBudget()
    const result = await runAgent(agent, 'hi', { budget })
    expect(result.wallet).toBe(ADA_WALLET)
    expect(Object.keys(budget.spentByWallet())).toEqual([ADA_WALLET])
  })

  it('names every bad field of an invalid agent', async () => {
    const agent = { ...makeAgent(), model: 'gpt-4o' }
    await expect(runAgent(agent, 'hi', { budget: createBudget() })).rejects.toThrow(
      /Invalid agent: model: must be "provider:model-id"/,
    )
  })
})
