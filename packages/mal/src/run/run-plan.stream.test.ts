import {
  createModelRegistry,
  createOfflineModel,
  createStaticRegistry,
  type ModelRegistry,
} from '@baton/core'
import { describe, expect, it } from 'vitest'
import { agentRecord, analystWallet } from '../__fixtures__/agents'
import type { RunEvent } from './run-event'
import { runPlan } from './run-plan'

type Delta = Extract<RunEvent, { type: 'step-delta' }>
type Finish = Extract<RunEvent, { type: 'step-finish' }>

const registry = () => createStaticRegistry([agentRecord({ persona: '[[chunk-delay:2]]' })])

const deltasOf = (events: RunEvent[]) =>
  events.filter((event): event is Delta => event.type === 'step-delta')
const finishOf = (events: RunEvent[], path: string) =>
  events.find((event): event is Finish => event.type === 'step-finish' && event.path === path)

describe('runPlan step-delta events', () => {
  it('streams a delegate, a task and a models_call as they write, live only', async () => {
    const seen: RunEvent[] = []
    const result = await runPlan(
      {
        steps: [
          { op: 'delegate', saveAs: 'a', agentWallet: analystWallet, prompt: 'Review the refund' },
          { op: 'task', saveAs: 'b', agentWallet: analystWallet, prompt: 'Check it again' },
          {
            op: 'models_call',
            saveAs: 'c',
            model: 'offline:default',
            prompt: `[[chunk-delay:2]] [[answer:${'model words '.repeat(10)}]]`,
          },
        ],
      },
      {
        registry: registry(),
        coordinatorWallet: 'coordinator',
        onEvent: (event) => seen.push(event),
      },
    )
    expect(result.status).toBe('done')
    for (const [path, saveAs, wallet] of [
      ['steps[0]', 'a', analystWallet],
      ['steps[1]', 'b', analystWallet],
      ['steps[2]', 'c', 'coordinator'],
    ] as const) {
      const deltas = deltasOf(seen).filter((delta) => delta.path === path)
      expect(deltas.length).toBeGreaterThan(0)
      expect(deltas.every((delta) => delta.wallet === wallet)).toBe(true)
      // The streamed text is the step's value, whole, in order.
      expect(deltas.map((delta) => delta.text).join('')).toBe(result.values[saveAs])
      const finish = finishOf(seen, path)!
      expect(finish.firstTextMs).toBeGreaterThanOrEqual(0)
      expect(finish.firstTextMs).toBeLessThanOrEqual(finish.durationMs)
      // Every delta of a step comes between its start and its finish.
      const at = (event: RunEvent) => seen.indexOf(event)
      const start = seen.find((event) => event.type === 'step-start' && event.path === path)!
      expect(deltas.every((delta) => at(delta) > at(start) && at(delta) < at(finish))).toBe(true)
    }
    // Live only: not kept in the result, and taking no number of their own.
    expect(result.events.some((event) => event.type === 'step-delta')).toBe(false)
    const numbered = seen.filter((event) => event.type !== 'step-delta')
    expect(numbered.map((event) => event.sequence)).toEqual(numbered.map((_, index) => index))
  })

  it('coalesces a fast model into few events, none longer than a few hundred characters', async () => {
    const seen: RunEvent[] = []
    const long = 'x'.repeat(6_000)
    const result = await runPlan(
      {
        steps: [
          {
            op: 'models_call',
            saveAs: 'c',
            model: 'offline:default',
            prompt: `[[answer:${long}]]`,
          },
        ],
      },
      { registry: createStaticRegistry([]), onEvent: (event) => seen.push(event) },
    )
    const deltas = deltasOf(seen)
    // 250 chunks of 24 characters from the model; the events carry them in far fewer pieces.
    expect(deltas.map((delta) => delta.text).join('')).toBe(result.values.c)
    expect(deltas.length).toBeLessThanOrEqual(Math.ceil(6_000 / 400) + 2)
    expect(deltas.every((delta) => delta.text.length <= 400 + 24)).toBe(true)
  })

  it('carries the deltas on run.events too, and none when stepDeltas is false', async () => {
    const plan = {
      steps: [{ op: 'delegate', saveAs: 'a', agentWallet: analystWallet, prompt: 'Review it' }],
    }
    const run = runPlan(plan, { registry: registry() })
    const streamed: RunEvent[] = []
    for await (const event of run.events) streamed.push(event)
    expect(
      deltasOf(streamed)
        .map((delta) => delta.text)
        .join(''),
    ).toBe((await run).values.a)

    const quiet: RunEvent[] = []
    const result = await runPlan(plan, {
      registry: registry(),
      stepDeltas: false,
      onEvent: (event) => quiet.push(event),
    })
    expect(result.status).toBe('done')
    expect(deltasOf(quiet)).toEqual([])
    expect(finishOf(quiet, 'steps[0]')?.firstTextMs).toBeUndefined()
  })

  it('makes each call whole when nobody listens, and streams for a reader of run.events', async () => {
    const calls: string[] = []
    const models = createModelRegistry({
      env: {},
      providers: {
        offline: (modelId): ReturnType<ModelRegistry['languageModel']> => {
          const inner = createOfflineModel(modelId)
          return {
            ...inner,
            specificationVersion: 'v3',
            provider: 'offline',
            modelId,
            supportedUrls: {},
            doGenerate: (options) => {
              calls.push('generate')
              return inner.doGenerate(options)
            },
            doStream: (options) => {
              calls.push('stream')
              return inner.doStream(options)
            },
          }
        },
      },
    })
    const plan = {
      steps: [
        { op: 'delegate', saveAs: 'a', agentWallet: analystWallet, prompt: 'Review it' },
        { op: 'models_call', saveAs: 'b', model: 'offline:default', prompt: 'Sum it up' },
      ],
    }
    const quiet = await runPlan(plan, { registry: registry(), models })
    expect(quiet.status).toBe('done')
    expect(calls).toEqual(['generate', 'generate'])
    expect(quiet.events.some((event) => event.type === 'step-delta')).toBe(false)

    calls.length = 0
    const run = runPlan(plan, { registry: registry(), models })
    const streamed: RunEvent[] = []
    for await (const event of run.events) streamed.push(event)
    expect(calls).toEqual(['stream', 'stream'])
    const result = await run
    expect(
      deltasOf(streamed)
        .map((delta) => delta.text)
        .join(''),
    ).toBe(`${result.values.a}${result.values.b}`)
    // The same answers either way.
    expect(result.values).toEqual(quiet.values)
  })

  it('sends the text a failing step streamed before its step-error', async () => {
    const seen: RunEvent[] = []
    const result = await runPlan(
      {
        // Out of time in the middle of a slow answer.
        budget: { maxWallMs: 150 },
        steps: [
          {
            op: 'models_call',
            saveAs: 'c',
            model: 'offline:default',
            prompt: `[[chunk-delay:20]] [[answer:${'y'.repeat(2_400)}]]`,
          },
        ],
      },
      { registry: createStaticRegistry([]), onEvent: (event) => seen.push(event) },
    )
    expect(result.status).toBe('failed')
    const error = seen.findIndex((event) => event.type === 'step-error')
    const deltas = deltasOf(seen)
    expect(deltas.length).toBeGreaterThan(0)
    expect(deltas.every((delta) => seen.indexOf(delta) < error)).toBe(true)
  })
})
