import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createStaticRegistry, createToolRegistry } from '@baton/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type A2AServer, startA2AServer } from '../__fixtures__/a2a-server'
import { agentRecord, analystWallet, remoteWallet, reviewerWallet } from '../__fixtures__/agents'
import { type CallOptions, offlineModels } from '../__fixtures__/offline-models'
import type { RunEvent } from './run-event'
import { runPlan } from './run-plan'

let remote: A2AServer
let workspaceRoot: string
beforeAll(async () => {
  remote = await startA2AServer((request) => {
    const params = request.params as { message: { parts: { text: string }[] } }
    return {
      result: {
        kind: 'message',
        role: 'agent',
        messageId: 'reply-1',
        parts: [{ kind: 'text', text: `remote saw: ${params.message.parts[0]?.text}` }],
      },
    }
  })
  workspaceRoot = await mkdtemp(path.join(tmpdir(), 'mal-ops-'))
})
afterAll(async () => {
  await remote.close()
  await rm(workspaceRoot, { recursive: true, force: true })
})

const lookup = {
  description: 'Looks an order up',
  inputSchema: z.object({ id: z.number() }),
  execute: async ({ id }: { id: number }) => ({ id, status: 'shipped' }),
}

function registry() {
  return createStaticRegistry([
    agentRecord({ tools: ['lookup'] }),
    agentRecord({
      id: 'reviewer',
      wallet: reviewerWallet,
      name: 'Reviewer',
      type: 'reviewer',
      persona: '[[answer:approved]]',
    }),
    agentRecord({
      id: 'remote',
      wallet: remoteWallet,
      name: 'Remote',
      endpoint: remote.url,
    }),
  ])
}

const types = (events: RunEvent[]) => events.map((event) => event.type)

describe('runPlan ops', () => {
  it('runs task as a sub-agent: persona override, narrowed tools, and no directory for a task that touched no file', async () => {
    const result = await runPlan(
      {
        steps: [
          {
            op: 'task',
            saveAs: 'checked',
            agentWallet: analystWallet,
            prompt: 'Check order 7',
            persona: 'Be exact. [[tool:lookup {"id":7}]]',
            tools: ['lookup'],
            isolation: 'workspace',
          },
          { op: 'stop', output: '{{checked}}' },
        ],
      },
      {
        registry: registry(),
        toolRegistry: createToolRegistry({ lookup }),
        workspaceRoot,
      },
    )
    expect(result.status).toBe('done')
    expect(result.output).toMatch(/Risk Analyst \(specialist\)/)
    expect(result.output).toMatch(/lookup → .*shipped/)
    expect(result.output).toMatch(/Persona: Be exact/)
    // Two model calls: the tool call, then the answer; both charged to the agent.
    expect(result.usageByWallet[analystWallet]?.calls).toBe(2)
    // isolation: workspace makes a directory of its own only when the task touches a file.
    expect(existsSync(path.join(workspaceRoot, '.subagents'))).toBe(false)
  })

  it('fails a task whose tools are not on the agent card', async () => {
    const result = await runPlan(
      {
        steps: [
          {
            op: 'task',
            saveAs: 'x',
            agentWallet: analystWallet,
            prompt: 'Do it',
            tools: ['shell'],
          },
        ],
      },
      { registry: registry(), toolRegistry: createToolRegistry({ lookup }), workspaceRoot },
    )
    expect(result.status).toBe('failed')
    expect(result.error?.code).toBe('TASK_FAILED')
    expect(result.error?.message).toMatch(/shell/)
  })

  it('delegates to a local agent in process and to a remote agent over A2A', async () => {
    const result = await runPlan(
      {
        inputs: { topic: 'string' },
        steps: [
          {
            op: 'delegate',
            saveAs: 'local',
            agentWallet: reviewerWallet,
            prompt: 'Review {{topic}}',
          },
          { op: 'delegate', saveAs: 'far', agentWallet: remoteWallet, prompt: 'Also {{local}}' },
          { op: 'stop', output: { local: '{{local}}', far: '{{far}}' } },
        ],
      },
      { registry: registry(), inputs: { topic: 'refunds' } },
    )
    expect(result.status).toBe('done')
    expect(result.output).toEqual({ local: 'approved', far: 'remote saw: Also approved' })
    expect(remote.requests.at(-1)).toMatchObject({
      method: 'message/send',
      params: {
        message: {
          role: 'user',
          kind: 'message',
          parts: [{ kind: 'text', text: 'Also approved' }],
        },
      },
    })
    expect(result.usageByWallet[remoteWallet]).toEqual({ calls: 1, tokens: 0, costUsd: 0 })
    expect(result.usageByWallet[reviewerWallet]?.calls).toBe(1)
  })

  it('calls a model directly with models_call and synthesizes, charging the coordinator', async () => {
    const result = await runPlan(
      {
        steps: [
          {
            op: 'models_call',
            saveAs: 'draft',
            model: 'offline:default',
            system: 'You draft.',
            prompt: '[[answer:first draft]]',
            temperature: 0,
          },
          {
            op: 'synthesize',
            saveAs: 'final',
            from: ['draft'],
            instruction: 'Polish it. [[answer:polished]]',
          },
          { op: 'stop', output: '{{draft}} -> {{final}}' },
        ],
      },
      { registry: registry(), coordinatorWallet: '0xC00000000000000000000000000000000000000C' },
    )
    expect(result.output).toBe('first draft -> polished')
    expect(Object.keys(result.usageByWallet)).toEqual([
      '0xC00000000000000000000000000000000000000C',
    ])
    expect(result.usage.calls).toBe(2)
    const finishes = result.events.filter((event) => event.type === 'step-finish')
    expect(finishes[0]).toMatchObject({ wallet: '0xC00000000000000000000000000000000000000C' })
  })

  it('sends system, temperature and a step budget cap to the model, and synthesize its sources to the model it names', async () => {
    const calls: { model: string; options: CallOptions }[] = []
    const models = offlineModels({
      onCall: ({ modelId, options }) => calls.push({ model: modelId, options }),
    })
    const result = await runPlan(
      {
        inputs: { topic: 'string' },
        steps: [
          {
            op: 'models_call',
            saveAs: 'draft',
            model: 'offline:drafter',
            system: 'You draft notes on {{topic}}.',
            prompt: '[[answer:first draft]]',
            temperature: 0.3,
            budget: { tokens: 200 },
          },
          {
            op: 'synthesize',
            saveAs: 'final',
            from: ['draft', 'topic'],
            instruction: 'Polish it. [[answer:polished]]',
            model: 'offline:editor',
          },
          { op: 'stop', output: '{{final}}' },
        ],
      },
      { registry: registry(), models, inputs: { topic: 'refunds' } },
    )
    expect(result.output).toBe('polished')
    expect(calls.map((call) => call.model)).toEqual(['drafter', 'editor'])
    const [draft, final] = calls.map((call) => call.options)
    expect(draft?.prompt[0]).toEqual({ role: 'system', content: 'You draft notes on refunds.' })
    expect(draft?.temperature).toBe(0.3)
    // The answer is capped by what the step's 200 tokens leave after the prompt.
    expect(draft?.maxOutputTokens).toBeGreaterThan(0)
    expect(draft?.maxOutputTokens).toBeLessThan(200)
    expect(final?.temperature).toBeUndefined()
    const finalPrompt = JSON.stringify(final?.prompt)
    expect(finalPrompt).toContain('## draft\\nfirst draft')
    expect(finalPrompt).toContain('## topic\\nrefunds')
    expect(finalPrompt).toContain('Polish it.')
  })

  it('runs task and delegate on the card model of the agent the registry returned', async () => {
    const used: string[] = []
    const models = offlineModels({ onCall: ({ modelId }) => used.push(modelId) })
    const cards = createStaticRegistry([agentRecord({ model: 'offline:analyst-card-model' })])
    const result = await runPlan(
      {
        steps: [
          { op: 'delegate', saveAs: 'd', agentWallet: analystWallet, prompt: 'one' },
          { op: 'task', saveAs: 't', agentWallet: analystWallet, prompt: 'two' },
        ],
      },
      { registry: cards, models, workspaceRoot },
    )
    expect(result.status).toBe('done')
    expect(used).toEqual(['analyst-card-model', 'analyst-card-model'])
  })

  it('runs tool and scratch steps, validating tool arguments', async () => {
    const result = await runPlan(
      {
        inputs: { orderId: 'number' },
        steps: [
          { op: 'tool', saveAs: 'order', toolName: 'lookup', args: { id: '{{inputs.orderId}}' } },
          { op: 'scratch', action: 'write', key: 'status', value: '{{order.status}}' },
          { op: 'scratch', action: 'write', key: 'seen', value: true },
          { op: 'scratch', action: 'read', key: 'status', saveAs: 'status' },
          { op: 'scratch', action: 'delete', key: 'seen', saveAs: 'deleted' },
          { op: 'scratch', action: 'list', saveAs: 'keys' },
          { op: 'scratch', action: 'read', key: 'nope', saveAs: 'missing' },
          { op: 'stop', output: ['{{status}}', '{{deleted}}', '{{keys}}', '{{missing}}'] },
        ],
      },
      { registry: registry(), tools: { lookup }, inputs: { orderId: 9 } },
    )
    expect(result.output).toEqual(['shipped', true, ['status'], null])
    expect(result.values.order).toEqual({ id: 9, status: 'shipped' })

    const refused = await runPlan(
      { steps: [{ op: 'tool', saveAs: 'o', toolName: 'lookup', args: { id: 'nine' } }] },
      { registry: registry(), tools: { lookup } },
    )
    expect(refused.error).toMatchObject({ code: 'TOOL_FAILED', path: 'steps[0]' })
    expect(refused.error?.message).toMatch(/arguments are invalid/)
    const missing = await runPlan(
      { steps: [{ op: 'tool', saveAs: 'o', toolName: 'nope', args: {} }] },
      { registry: registry(), toolRegistry: createToolRegistry({ lookup }) },
    )
    expect(missing.error).toMatchObject({ code: 'TOOL_NOT_FOUND' })
    expect(missing.error?.message).toMatch(/available: lookup/)
  })

  it('branches with if and repeats with loop until its condition or maxIters', async () => {
    const plan = {
      inputs: { score: 'number' },
      steps: [
        {
          op: 'if',
          cond: '{{score}} >= 5 && !({{score}} > 100)',
          // biome-ignore lint/suspicious/noThenProperty: MAL if steps have a then field
          then: [{ op: 'scratch', action: 'write', key: 'grade', value: 'high' }],
          else: [{ op: 'scratch', action: 'write', key: 'grade', value: 'low' }],
        },
        {
          op: 'loop',
          while: '{{keys}} == null',
          maxIters: 10,
          do: [{ op: 'scratch', action: 'list', saveAs: 'keys' }],
        },
        {
          op: 'loop',
          while: 'true',
          maxIters: 2,
          do: [{ op: 'scratch', action: 'read', key: 'grade', saveAs: 'grade' }],
        },
        { op: 'stop', output: '{{grade}}' },
      ],
    }
    const high = await runPlan(plan, { registry: registry(), inputs: { score: 7 } })
    expect(high.output).toBe('high')
    const low = await runPlan(plan, { registry: registry(), inputs: { score: 2 } })
    expect(low.output).toBe('low')
    const loops = high.events.filter((event) => event.type === 'step-finish' && event.op === 'loop')
    expect(loops.map((event) => event.type === 'step-finish' && event.value)).toEqual([
      { iterations: 1 },
      { iterations: 2 },
    ])
    const iterations = high.events
      .filter((event) => event.type === 'step-start' && event.path === 'steps[2].do[0]')
      .map((event) => (event.type === 'step-start' ? event.iteration : 0))
    expect(iterations).toEqual([1, 2])
  })

  it("gathers a fanout's values by branch id, in branch order, any name a key like any other", async () => {
    const branch = (id: string, answer: string) => ({
      id,
      steps: [
        {
          op: 'models_call',
          saveAs: `v${answer}`,
          model: 'offline:x',
          prompt: `[[answer:${answer}]]`,
        },
      ],
    })
    const result = await runPlan(
      {
        steps: [
          {
            op: 'fanout',
            saveAs: 'views',
            branches: [branch('z', 'Z'), branch('__proto__', 'P'), branch('a', 'A')],
          },
        ],
      },
      { registry: registry() },
    )
    expect(result.status).toBe('done')
    const views = result.values.views as Record<string, unknown>
    expect(Object.keys(views)).toEqual(['z', '__proto__', 'a'])
    expect(Object.getOwnPropertyDescriptor(views, '__proto__')?.value).toBe('P')
    expect(Object.getPrototypeOf(views)).toBe(Object.prototype)
  })

  it('runs fanout branches with each gather mode', async () => {
    const branches = [
      {
        id: 'a',
        steps: [{ op: 'models_call', saveAs: 'va', model: 'offline:x', prompt: '[[answer:A]]' }],
      },
      {
        id: 'b',
        steps: [{ op: 'models_call', saveAs: 'vb', model: 'offline:x', prompt: '[[fail:nope]]' }],
      },
      {
        id: 'c',
        steps: [
          {
            op: 'models_call',
            saveAs: 'vc',
            model: 'offline:x',
            prompt: '[[sleep:50]][[answer:C]]',
          },
          { op: 'stop', output: 'C wins' },
        ],
      },
    ]
    const run = (gather: string) =>
      runPlan(
        {
          steps: [
            { op: 'fanout', saveAs: 'views', gather, concurrency: 3, branches },
            { op: 'stop', output: '{{views}}' },
          ],
        },
        { registry: registry() },
      )
    const all = await run('all')
    expect(all.status).toBe('failed')
    expect(all.error).toMatchObject({
      code: 'OFFLINE_MODEL_FAILED',
      path: 'steps[0].branches[1].steps[0]',
    })
    const any = await run('any-success')
    expect(any.output).toEqual({ a: 'A', c: 'C wins' })
    const first = await run('first')
    expect(first.output).toBe('A')
    // Every started step ends with exactly one finish or error.
    for (const result of [all, any, first]) {
      const starts = result.events.filter((event) => event.type === 'step-start').length
      const ends = result.events.filter(
        (event) => event.type === 'step-finish' || event.type === 'step-error',
      ).length
      expect(ends).toBe(starts)
    }
    const none = await runPlan(
      { steps: [{ op: 'fanout', saveAs: 'v', gather: 'any-success', branches: [branches[1]] }] },
      { registry: registry() },
    )
    expect(none.error).toMatchObject({ code: 'FANOUT_FAILED' })
  })

  it('runs fanout branches no more than concurrency at a time', async () => {
    const result = await runPlan(
      {
        steps: [
          {
            op: 'fanout',
            saveAs: 'views',
            concurrency: 1,
            branches: ['a', 'b', 'c'].map((id) => ({
              id,
              steps: [
                {
                  op: 'models_call',
                  saveAs: `v${id}`,
                  model: 'offline:x',
                  prompt: `[[answer:${id}]]`,
                },
              ],
            })),
          },
        ],
      },
      { registry: registry() },
    )
    expect(result.values.views).toEqual({ a: 'a', b: 'b', c: 'c' })
    const order = result.events
      .filter((event) => event.type === 'step-start' || event.type === 'step-finish')
      .map((event) => `${event.type}:${event.path}`)
      .filter((entry) => entry.includes('branches'))
    expect(order).toEqual([
      'step-start:steps[0].branches[0].steps[0]',
      'step-finish:steps[0].branches[0].steps[0]',
      'step-start:steps[0].branches[1].steps[0]',
      'step-finish:steps[0].branches[1].steps[0]',
      'step-start:steps[0].branches[2].steps[0]',
      'step-finish:steps[0].branches[2].steps[0]',
    ])
  })

  it('ends as stopped when a stop gives a reason, and as done when the steps run out', async () => {
    const stopped = await runPlan(
      {
        steps: [
          { op: 'stop', output: 'not enough data', reason: 'missing input' },
          { op: 'stop', output: 'x' },
        ],
      },
      { registry: registry() },
    )
    expect(stopped).toMatchObject({
      status: 'stopped',
      output: 'not enough data',
      reason: 'missing input',
    })
    const done = await runPlan(
      { steps: [{ op: 'scratch', action: 'list', saveAs: 'k' }] },
      { registry: registry() },
    )
    expect(done).toMatchObject({ status: 'done', output: null })
    expect(types(done.events).at(-1)).toBe('run-finish')
  })

  it('refuses invalid plans and inputs before anything runs', async () => {
    await expect(
      runPlan({ steps: [{ op: 'stop', output: '{{x}}' }] }, { registry: registry() }),
    ).rejects.toMatchObject({ code: 'PLAN_INVALID' })
    await expect(
      runPlan(
        { inputs: { n: 'number' }, steps: [{ op: 'stop', output: '{{n}}' }] },
        { registry: registry(), inputs: { n: 'five', extra: 1 } },
      ),
    ).rejects.toMatchObject({
      code: 'PLAN_INPUT_INVALID',
      issues: [
        { path: 'extra', message: expect.stringMatching(/no such input/) },
        { path: 'n', message: expect.stringMatching(/must be a number/) },
      ],
    })
  })

  it('refuses options that are not what they claim to be', async () => {
    await expect(
      runPlan({ steps: [{ op: 'stop', output: 'x' }] }, { registry: {} as never, model: 'gpt-4o' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      issues: [
        { path: 'registry', message: expect.stringMatching(/registry client/) },
        { path: 'model', message: expect.stringMatching(/provider:model-id/) },
      ],
    })
  })

  it('refuses before it runs a template reading a value only a skipped branch saves', async () => {
    const oneBranch = {
      steps: [
        {
          op: 'if',
          cond: 'false',
          // biome-ignore lint/suspicious/noThenProperty: MAL if steps have a then field
          then: [{ op: 'scratch', action: 'list', saveAs: 'keys' }],
        },
        { op: 'stop', output: '{{keys}}' },
      ],
    }
    await expect(runPlan(oneBranch, { registry: registry() })).rejects.toMatchObject({
      code: 'PLAN_INVALID',
      issues: [{ path: 'steps[1].output', message: expect.stringMatching(/only the then branch/) }],
    })
  })

  it('fails a step whose template reads a field the saved value does not have', async () => {
    const result = await runPlan(
      {
        steps: [
          { op: 'scratch', action: 'list', saveAs: 'keys' },
          { op: 'stop', output: '{{keys[3]}}' },
        ],
      },
      { registry: registry() },
    )
    expect(result.error).toMatchObject({ code: 'TEMPLATE_UNRESOLVED', path: 'steps[1]' })
    expect(existsSync(workspaceRoot)).toBe(true)
  })
})
