import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createBudget } from '../budget'
import { BatonError } from '../errors/baton-error'
import { withToolSource } from '../tools'
import { ADA_WALLET, makeAgent } from './__fixtures__/make-agent'
import { runAgent } from './run-agent'
import type { ToolCallEvent } from './tool-call-event'

class LookupFailedError extends BatonError {
  constructor() {
    super('LOOKUP_FAILED', 'the lookup failed')
  }
}

const extraTools = {
  add: tool({
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }) => {
      await new Promise((resolve) => setTimeout(resolve, 20))
      return { sum: a + b }
    },
  }),
  lookup: withToolSource(
    tool({
      inputSchema: z.object({ key: z.string() }),
      execute: async (): Promise<string> => {
        throw new LookupFailedError()
      },
    }),
    { server: 'kv', tool: 'get' },
  ),
  broken: tool({
    inputSchema: z.object({}),
    execute: async (): Promise<string> => {
      throw new Error('disk on fire')
    },
  }),
}

describe('runAgent onToolCall', () => {
  it('reports every tool call before it runs and after, with duration, error, server and wallet', async () => {
    const events: ToolCallEvent[] = []
    const agent = makeAgent({ tools: ['add', 'lookup', 'broken'] })
    const result = await runAgent(
      agent,
      'go [[tool:add {"a":2,"b":3}]] [[tool:lookup {"key":"k"}]] [[tool:broken {}]] [[tool:add {"a":"x"}]] [[tool:nope {}]]',
      {
        budget: createBudget({ calls: 20 }),
        maxIterations: 6,
        extraTools,
        onToolCall: (event) => events.push(event),
      },
    )
    // The offline model makes one call per step; every step's calls are reported.
    expect(result.steps.flatMap((step) => step.toolCalls)).toHaveLength(5)
    const calls = events.filter((event) => event.type === 'tool-call')
    const results = events.filter((event) => event.type === 'tool-result')
    expect(calls.map((event) => event.name)).toEqual(['add', 'lookup', 'broken', 'add', 'nope'])
    expect(results).toHaveLength(5)
    // Each call is announced before its result.
    for (const call of calls) {
      const callAt = events.indexOf(call)
      const resultAt = events.findIndex(
        (event) => event.type === 'tool-result' && event.toolCallId === call.toolCallId,
      )
      expect(resultAt).toBeGreaterThan(callAt)
      expect(call.wallet).toBe(ADA_WALLET)
    }
    const byName = (name: string) => results.filter((event) => event.name === name)
    const [added, refused] = byName('add')
    expect(calls[0]).toMatchObject({ tool: 'add', input: { a: 2, b: 3 } })
    expect(calls[0]).not.toHaveProperty('server')
    expect(added).toMatchObject({ type: 'tool-result', tool: 'add' })
    expect(added).not.toHaveProperty('error')
    expect(added!.durationMs).toBeGreaterThan(0)
    expect(refused?.error?.code).toBe('TOOL_INPUT_INVALID')
    expect(byName('lookup')[0]).toMatchObject({
      server: 'kv',
      tool: 'get',
      error: { code: 'LOOKUP_FAILED', message: 'the lookup failed' },
    })
    expect(byName('broken')[0]?.error).toEqual({ code: 'TOOL_FAILED', message: 'disk on fire' })
    expect(byName('nope')[0]?.error?.code).toBe('TOOL_UNAVAILABLE')
  })

  it('keeps a tool’s source through a wrapper that copies it', async () => {
    const events: ToolCallEvent[] = []
    const lookup = extraTools.lookup
    const counted = { ...lookup, execute: lookup.execute }
    await runAgent(makeAgent({ tools: ['lookup'] }), 'x [[tool:lookup {"key":"k"}]]', {
      budget: createBudget({ calls: 5 }),
      extraTools: { lookup: counted },
      onToolCall: (event) => events.push(event),
    })
    expect(events.map((event) => [event.type, event.server, event.tool])).toEqual([
      ['tool-call', 'kv', 'get'],
      ['tool-result', 'kv', 'get'],
    ])
  })
})
