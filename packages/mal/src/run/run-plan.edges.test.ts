import { createInMemoryMemoryStore, createStaticRegistry } from '@baton/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type A2AServer, startA2AServer } from '../__fixtures__/a2a-server'
import { agentRecord, analystWallet, remoteWallet } from '../__fixtures__/agents'
import { safeParsePlan } from '../validate'
import { RunEvent } from './run-event'
import { runPlan } from './run-plan'

let remote: A2AServer
beforeAll(async () => {
  remote = await startA2AServer(() => ({ error: { code: -32001, message: 'Task not found' } }))
})
afterAll(() => remote.close())

const registry = () =>
  createStaticRegistry([
    agentRecord({ memoryScope: 'analyst' }),
    agentRecord({ id: 'remote', wallet: remoteWallet, name: 'Remote', endpoint: remote.url }),
  ])

describe('runPlan edges', () => {
  it('gives a task the agent its own memory with isolation none, and fresh memory otherwise', async () => {
    const memory = createInMemoryMemoryStore()
    const task = (isolation: string) => ({
      steps: [
        {
          op: 'task',
          saveAs: 't',
          agentWallet: analystWallet,
          prompt: `remember ${isolation}`,
          isolation,
        },
      ],
    })
    expect((await runPlan(task('memory'), { registry: registry(), memory })).status).toBe('done')
    expect(await memory.read('analyst')).toEqual([])
    expect((await runPlan(task('none'), { registry: registry(), memory })).status).toBe('done')
    const entries = await memory.read('analyst')
    expect(entries.map((entry) => entry.content)).toContain('remember none')
    expect(entries.every((entry) => entry.wallet === analystWallet)).toBe(true)
  })

  it('keeps the answer of a task or delegate whose one call uses its step budget up exactly', async () => {
    for (const op of ['task', 'delegate']) {
      const result = await runPlan(
        {
          steps: [
            {
              op,
              saveAs: 'answer',
              agentWallet: analystWallet,
              prompt: '[[answer:done in one]]',
              budget: { calls: 1 },
            },
            { op: 'stop', output: '{{answer}}' },
          ],
        },
        { registry: registry() },
      )
      expect({ op, status: result.status, error: result.error }).toEqual({
        op,
        status: 'done',
        error: undefined,
      })
      expect(result.output).toBe('done in one')
      expect(result.usage.calls).toBe(1)
    }
  })

  it('fails a task or delegate that runs out of its budget with the budget error', async () => {
    for (const [op, limits, said] of [
      ['task', { cost: 0.000001 }, '\\$[\\d.]+ but has \\$'],
      ['delegate', { cost: 0.000001 }, '\\$[\\d.]+ but has \\$'],
      ['task', { tokens: 5 }, '\\d+ tokens but has \\d+ of 5 tokens'],
    ] as const) {
      const result = await runPlan(
        {
          steps: [
            {
              op,
              saveAs: 'answer',
              agentWallet: analystWallet,
              prompt: `Write at length. [[answer:${'words '.repeat(200)}]]`,
              budget: limits,
            },
          ],
        },
        { registry: registry() },
      )
      expect({ op, status: result.status, code: result.error?.code }).toEqual({
        op,
        status: 'failed',
        code: 'BUDGET_EXCEEDED',
      })
      expect(result.error?.message).toMatch(new RegExp(`Budget "steps\\[0\\].* needs ${said}`))
      expect(result.usage.calls).toBe(0)
    }
  })

  it('fails a delegate to a remote agent with the typed A2A error and charges nothing', async () => {
    const result = await runPlan(
      { steps: [{ op: 'delegate', saveAs: 'r', agentWallet: remoteWallet, prompt: 'hi' }] },
      { registry: registry() },
    )
    expect(result.error).toMatchObject({ code: 'A2A_RPC_ERROR', path: 'steps[0]' })
    expect(result.error?.message).toMatch(/-32001: Task not found/)
    expect(result.usage).toEqual({ calls: 0, tokens: 0, costUsd: 0 })
  })

  it('fails a step whose condition orders values of different kinds', async () => {
    const result = await runPlan(
      {
        inputs: { config: 'object' },
        // biome-ignore lint/suspicious/noThenProperty: MAL if steps have a then field
        steps: [{ op: 'if', cond: '{{config}} > 3', then: [{ op: 'stop', output: 'big' }] }],
      },
      { registry: registry(), inputs: { config: { a: 1 } } },
    )
    expect(result.error).toMatchObject({ code: 'CONDITION_TYPE', path: 'steps[0]' })
  })

  it('cancels the losing branches of a first-gather fanout', async () => {
    const result = await runPlan(
      {
        steps: [
          {
            op: 'fanout',
            saveAs: 'winner',
            gather: 'first',
            branches: [
              {
                id: 'slow',
                steps: [
                  { op: 'models_call', saveAs: 's', model: 'offline:x', prompt: '[[sleep:20000]]' },
                ],
              },
              {
                id: 'fast',
                steps: [
                  { op: 'models_call', saveAs: 'f', model: 'offline:x', prompt: '[[answer:fast]]' },
                ],
              },
            ],
          },
          { op: 'stop', output: '{{winner}}' },
        ],
      },
      { registry: registry() },
    )
    expect(result).toMatchObject({ status: 'done', output: 'fast' })
    const slow = result.events.find((event) => event.type === 'step-error' && event.saveAs === 's')
    expect(slow).toMatchObject({ code: 'CANCELLED', usage: { calls: 0 } })
    expect(result.usage.calls).toBe(1)
  })

  it('emits only events that match the RunEvent schema', async () => {
    const result = await runPlan(
      {
        inputs: { topic: 'string' },
        steps: [
          { op: 'models_call', saveAs: 'a', model: 'offline:x', prompt: '{{topic}}' },
          {
            op: 'loop',
            while: 'true',
            maxIters: 2,
            do: [{ op: 'scratch', action: 'list', saveAs: 'k' }],
          },
          { op: 'ask_user', saveAs: 'q', question: 'ok?' },
        ],
      },
      { registry: registry(), inputs: { topic: 't' } },
    )
    expect(result.status).toBe('paused')
    for (const event of result.events)
      expect(RunEvent.safeParse(event).success, event.type).toBe(true)
    expect(new Set(result.events.map((event) => event.type))).toEqual(
      new Set(['run-start', 'step-start', 'step-finish', 'run-pause', 'run-finish']),
    )
  })
})

describe('safeParsePlan on JSON text', () => {
  it('places problems at their line and column in the JSON', () => {
    const source = JSON.stringify(
      { steps: [{ op: 'delegate', saveAs: 'a', agentWallet: '0xnope', prompt: 'x' }] },
      null,
      2,
    )
    const result = safeParsePlan(source)
    expect(result.success).toBe(false)
    if (!result.success) {
      expect(result.error.issues[0]).toMatchObject({
        path: 'steps[0].agentWallet',
        line: 6,
        column: 22,
      })
    }
  })
})
