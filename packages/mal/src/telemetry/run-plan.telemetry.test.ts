import { createStaticRegistry, createToolRegistry } from '@baton/core'
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { type A2AServer, startA2AServer } from '../__fixtures__/a2a-server'
import { agentRecord, remoteWallet, reviewerWallet } from '../__fixtures__/agents'
import { runPlan } from '../run/run-plan'

const exporter = new InMemorySpanExporter()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
let remote: A2AServer
beforeAll(async () => {
  provider.register()
  remote = await startA2AServer(() => ({
    result: {
      kind: 'message',
      role: 'agent',
      messageId: 'reply-1',
      parts: [{ kind: 'text', text: 'far' }],
    },
  }))
})
afterEach(() => {
  exporter.reset()
  vi.unstubAllEnvs()
})
afterAll(async () => {
  await provider.shutdown()
  await remote.close()
})

const lookup = {
  description: 'Looks an order up',
  inputSchema: z.object({ id: z.number() }),
  execute: async ({ id }: { id: number }) => ({ id, status: 'shipped' }),
}

const registry = () =>
  createStaticRegistry([
    agentRecord({ id: 'remote', wallet: remoteWallet, name: 'Remote', endpoint: remote.url }),
    agentRecord({
      id: 'reviewer',
      wallet: reviewerWallet,
      name: 'Reviewer',
      type: 'reviewer',
      tools: ['lookup'],
      persona: 'Check first. [[tool:lookup {"id":7}]]',
    }),
  ])

const plan = {
  name: 'review',
  inputs: { topic: 'string' },
  steps: [
    {
      op: 'delegate' as const,
      saveAs: 'verdict',
      agentWallet: reviewerWallet,
      prompt: 'Review {{topic}}',
    },
    { op: 'stop' as const, output: '{{verdict}}' },
  ],
}

function run(budget?: { calls: number }) {
  return runPlan(budget ? { ...plan, budget } : plan, {
    registry: registry(),
    toolRegistry: createToolRegistry({ lookup }),
    inputs: { topic: 'refunds' },
  })
}

function byOperation(spans: ReadableSpan[], operation: string): ReadableSpan[] {
  return spans.filter((span) => span.attributes['gen_ai.operation.name'] === operation)
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId

describe('run telemetry', () => {
  it('traces a delegate over A2A as a CLIENT invoke_agent span whose traceparent the remote agent receives', async () => {
    const result = await runPlan(
      {
        name: 'ask',
        steps: [{ op: 'delegate', saveAs: 'far', agentWallet: remoteWallet, prompt: 'Hello' }],
      },
      { registry: registry() },
    )
    expect(result.status).toBe('done')
    await provider.forceFlush()
    const spans = exporter.getFinishedSpans()
    const [workflow] = byOperation(spans, 'invoke_workflow')
    const [agent] = byOperation(spans, 'invoke_agent')
    expect(agent?.name).toBe('invoke_agent Remote')
    expect(agent?.kind).toBe(SpanKind.CLIENT)
    expect(parentOf(agent!)).toBe(workflow?.spanContext().spanId)
    const sent = remote.requests.at(-1)?.headers?.traceparent
    expect(sent).toBe(`00-${agent?.spanContext().traceId}-${agent?.spanContext().spanId}-01`)
  })

  it('traces a delegate run as workflow → agent → chat and tool, with the GenAI attributes', async () => {
    const result = await run()
    expect(result.status).toBe('done')
    await provider.forceFlush()
    const spans = exporter.getFinishedSpans()

    const [workflow, ...moreWorkflows] = byOperation(spans, 'invoke_workflow')
    expect(moreWorkflows).toEqual([])
    expect(workflow?.name).toBe('invoke_workflow review')
    expect(workflow?.attributes).toMatchObject({
      'gen_ai.workflow.name': 'review',
      'gen_ai.conversation.id': result.runId,
      'baton.run.id': result.runId,
      'baton.run.status': 'done',
    })

    const [agent, ...moreAgents] = byOperation(spans, 'invoke_agent')
    expect(moreAgents).toEqual([])
    expect(agent?.name).toBe('invoke_agent Reviewer')
    expect(parentOf(agent!)).toBe(workflow?.spanContext().spanId)
    expect(agent?.attributes).toMatchObject({
      'gen_ai.agent.id': reviewerWallet,
      'gen_ai.agent.name': 'Reviewer',
    })

    // The tool call, then the answer: two model calls, both under the agent.
    const chats = byOperation(spans, 'chat')
    expect(chats).toHaveLength(2)
    for (const chat of chats) {
      expect(chat.name).toBe('chat default')
      expect(parentOf(chat)).toBe(agent?.spanContext().spanId)
      expect(chat.attributes).toMatchObject({
        'gen_ai.request.model': 'default',
        'gen_ai.provider.name': 'baton.offline',
        'baton.wallet': reviewerWallet,
      })
      expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0)
      expect(chat.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0)
      expect(typeof chat.attributes['baton.cost_usd']).toBe('number')
    }
    const charged = chats.reduce(
      (sum, chat) =>
        sum +
        (chat.attributes['gen_ai.usage.input_tokens'] as number) +
        (chat.attributes['gen_ai.usage.output_tokens'] as number),
      0,
    )
    expect(charged).toBe(result.usage.tokens)

    const [tool] = byOperation(spans, 'execute_tool')
    expect(tool?.name).toBe('execute_tool lookup')
    expect(parentOf(tool!)).toBe(agent?.spanContext().spanId)
    expect(tool?.attributes['gen_ai.tool.name']).toBe('lookup')

    // One trace; no prompt, completion or tool content unless asked for.
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1)
    const keys = spans.flatMap((span) => Object.keys(span.attributes))
    for (const key of [
      'gen_ai.input.messages',
      'gen_ai.output.messages',
      'gen_ai.system_instructions',
      'gen_ai.tool.call.arguments',
      'gen_ai.tool.call.result',
    ]) {
      expect(keys).not.toContain(key)
    }
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain('refunds')
  })

  it('records prompts, completions and tool content with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true', async () => {
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', 'true')
    // The setting is read once per turn of the event loop (a late change holds from the next
    // turn on): the previous test's last span may have read it in this very turn.
    await new Promise((resolve) => setImmediate(resolve))
    await run()
    await provider.forceFlush()
    const spans = exporter.getFinishedSpans()
    const [first, second] = byOperation(spans, 'chat')
    expect(first?.attributes['gen_ai.input.messages']).toContain('Review refunds')
    expect(first?.attributes['gen_ai.system_instructions']).toContain('Check first.')
    expect(second?.attributes['gen_ai.output.messages']).toContain('"role":"assistant"')
    const [tool] = byOperation(spans, 'execute_tool')
    expect(JSON.parse(String(tool?.attributes['gen_ai.tool.call.arguments']))).toEqual({ id: 7 })
    expect(tool?.attributes['gen_ai.tool.call.result']).toContain('shipped')
  })

  it('marks the failed agent and workflow with the Baton error code', async () => {
    // One call: the tool call fits, the answer after it does not.
    const result = await run({ calls: 1 })
    expect(result.status).toBe('failed')
    const code = result.error?.code
    expect(code).toBe('BUDGET_EXCEEDED')
    await provider.forceFlush()
    const spans = exporter.getFinishedSpans()
    const [workflow] = byOperation(spans, 'invoke_workflow')
    const [agent] = byOperation(spans, 'invoke_agent')
    for (const span of [workflow, agent]) {
      expect(span?.status.code).toBe(SpanStatusCode.ERROR)
      expect(span?.attributes['error.type']).toBe(code)
    }
  })
})
