import {
  createReceiptSigner,
  createStaticRegistry,
  createToolRegistry,
  generateReceiptKey,
  hashJson,
  verifyRunReceipt,
  withToolSource,
} from '@baton/core'
import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agentRecord, analystWallet } from '../__fixtures__/agents'
import { offlineModels } from '../__fixtures__/offline-models'
import { RunEvent } from './run-event'
import { runPlan } from './run-plan'

const runtime = createReceiptSigner(generateReceiptKey())
const registry = createStaticRegistry([agentRecord({ tools: ['lookup', 'explode'] })])
const toolRegistry = createToolRegistry({
  lookup: withToolSource(
    tool({
      inputSchema: z.object({ key: z.string() }),
      execute: async ({ key }) => `value of ${key}`,
    }),
    { server: 'kv', tool: 'get' },
  ),
  explode: tool({
    inputSchema: z.object({}),
    execute: async (): Promise<string> => {
      throw new Error('it exploded')
    },
  }),
})
const prompt = 'Look it up [[tool:lookup {"key":"a"}]] [[tool:explode {}]]'

describe('runPlan: the agents’ tool calls', () => {
  it('are tool-call / tool-result events of the step, with server, tool, duration and error', async () => {
    const result = await runPlan(
      {
        requireReceipt: true,
        steps: [
          { op: 'delegate', agentWallet: analystWallet, prompt, saveAs: 'answer' },
          {
            op: 'task',
            agentWallet: analystWallet,
            prompt: '[[tool:lookup {"key":"b"}]]',
            saveAs: 'checked',
          },
        ],
      },
      { registry, models: offlineModels(), toolRegistry, receiptSigner: runtime },
    )
    expect(result.status).toBe('done')
    for (const event of result.events) expect(RunEvent.safeParse(event).success).toBe(true)
    const tools = result.events.filter(
      (event) => event.type === 'tool-call' || event.type === 'tool-result',
    )
    expect(tools.map((event) => [event.type, event.path, event.op, event.name])).toEqual([
      ['tool-call', 'steps[0]', 'delegate', 'lookup'],
      ['tool-result', 'steps[0]', 'delegate', 'lookup'],
      ['tool-call', 'steps[0]', 'delegate', 'explode'],
      ['tool-result', 'steps[0]', 'delegate', 'explode'],
      ['tool-call', 'steps[1]', 'task', 'lookup'],
      ['tool-result', 'steps[1]', 'task', 'lookup'],
    ])
    expect(tools[0]).toMatchObject({
      server: 'kv',
      tool: 'get',
      wallet: analystWallet,
      input: { key: 'a' },
    })
    expect(tools[1]).toMatchObject({ server: 'kv', tool: 'get' })
    expect(tools[1]).not.toHaveProperty('error')
    expect(tools[3]).toMatchObject({
      tool: 'explode',
      error: { code: 'TOOL_FAILED', message: 'it exploded' },
    })
    expect(tools[3]).not.toHaveProperty('server')
    // Between its step's start and finish.
    const sequence = (type: string, path: string) =>
      result.events.find((event) => event.type === type && 'path' in event && event.path === path)
        ?.sequence ?? -1
    expect(tools[0]!.sequence).toBeGreaterThan(sequence('step-start', 'steps[0]'))
    expect(tools[3]!.sequence).toBeLessThan(sequence('step-finish', 'steps[0]'))

    const { receipt } = await verifyRunReceipt(JSON.parse(JSON.stringify(result.receipt)), {
      runtime: runtime.address,
    })
    expect(receipt.steps[0]?.toolCalls).toEqual([
      {
        name: 'lookup',
        tool: 'get',
        server: 'kv',
        wallet: analystWallet,
        inputHash: hashJson({ key: 'a' }),
        status: 'done',
        durationMs: expect.any(Number),
      },
      {
        name: 'explode',
        tool: 'explode',
        wallet: analystWallet,
        inputHash: hashJson({}),
        status: 'failed',
        durationMs: expect.any(Number),
        errorCode: 'TOOL_FAILED',
      },
    ])
    expect(receipt.steps[1]?.toolCalls).toMatchObject([{ name: 'lookup', status: 'done' }])
  })

  it('keeps a long input out of the event, summarised, and its hash whole', async () => {
    const key = 'k'.repeat(20_000)
    const result = await runPlan(
      {
        steps: [
          {
            op: 'delegate',
            agentWallet: analystWallet,
            prompt: `[[tool:lookup {"key":"${key}"}]]`,
            saveAs: 'long',
          },
        ],
      },
      { registry, models: offlineModels(), toolRegistry },
    )
    const call = result.events.find((event) => event.type === 'tool-call')
    expect(call).toMatchObject({
      input: { truncated: true, chars: JSON.stringify({ key }).length },
      inputHash: hashJson({ key }),
    })
    expect(JSON.stringify(call).length).toBeLessThan(2000)
  })

  it('leaves a step whose agent called no tool without a toolCalls record', async () => {
    const result = await runPlan(
      {
        requireReceipt: true,
        steps: [{ op: 'delegate', agentWallet: analystWallet, prompt: 'hi', saveAs: 'hi' }],
      },
      { registry, models: offlineModels(), toolRegistry, receiptSigner: runtime },
    )
    expect(result.receipt?.steps[0]).not.toHaveProperty('toolCalls')
  })
})
