import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { tool } from 'ai'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { makeAgent } from '../agent/__fixtures__/make-agent'
import { runAgent } from '../agent/run-agent'
import { createBudget } from '../budget'
import { type ModelCallRecord, onTelemetry, type ToolCallRecord } from './telemetry-listeners'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
beforeAll(() => provider.register())
afterEach(() => exporter.reset())
// The worker runs other files after this one (isolate: false): they must not inherit the provider.
afterAll(async () => {
  await provider.shutdown()
  trace.disable()
  context.disable()
  propagation.disable()
})

const extraTools = {
  mcp__files__read_file: tool({
    description: 'Reads a file',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => ({
      content: [{ type: 'text', text: `no ${path}` }],
      isError: true,
    }),
  }),
  add: tool({
    description: 'Adds',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }) => a + b,
  }),
}

describe('tool and model call telemetry', () => {
  it('names MCP tool spans per the MCP conventions, marks a tool error, and tells listeners every call', async () => {
    const models: ModelCallRecord[] = []
    const tools: ToolCallRecord[] = []
    const stop = onTelemetry({
      modelCall: (call) => models.push(call),
      toolCall: (call) => tools.push(call),
    })
    try {
      await runAgent(
        makeAgent({ tools: ['mcp__files__read_file', 'add'] }),
        'Go [[tool:mcp__files__read_file {"path":"a.txt"}]] [[tool:add {"a":1,"b":2}]]',
        { budget: createBudget({ calls: 5 }), extraTools },
      )
    } finally {
      stop()
    }
    await provider.forceFlush()
    const spans = exporter.getFinishedSpans()
    const mcp = spans.find((span) => span.name === 'tools/call read_file')
    expect(mcp?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'mcp.method.name': 'tools/call',
      'baton.mcp.server': 'files',
      'error.type': 'tool_error',
    })
    expect(mcp?.status.code).toBe(SpanStatusCode.ERROR)
    const add = spans.find((span) => span.name === 'execute_tool add')
    expect(add?.status.code).not.toBe(SpanStatusCode.ERROR)

    expect(
      tools
        .map(({ tool: name, outcome }) => ({ name, outcome }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual([
      { name: 'add', outcome: 'ok' },
      { name: 'mcp__files__read_file', outcome: 'error' },
    ])
    // One record per model call, as many as the chat spans.
    expect(models.length).toBeGreaterThan(0)
    expect(models).toHaveLength(spans.filter((span) => span.name === 'chat default').length)
    expect(models[0]).toMatchObject({ provider: 'baton.offline', model: 'default' })
    expect(models[0]!.inputTokens).toBeGreaterThan(0)
  })
})
