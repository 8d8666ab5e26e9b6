import { setTimeout as sleep } from 'node:timers/promises'
import { createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { offlineModels } from '../__fixtures__/offline-models'
import { parsePlan } from '../validate'
import { resumeRun } from './resume-run'
import { createMemoryResumeStore } from './resume-store'
import type { RunEvent } from './run-event'
import { runPlan } from './run-plan'
import type { RunState } from './run-state'

const registry = createStaticRegistry([])
const plan = parsePlan({
  budget: { calls: 10 },
  steps: [
    { op: 'models_call', saveAs: 'a', model: 'offline:x', prompt: '[[answer:one]]' },
    { op: 'models_call', saveAs: 'b', model: 'offline:x', prompt: '[[answer:two {{a}}]]' },
    { op: 'models_call', saveAs: 'c', model: 'offline:x', prompt: '[[answer:three {{b}}]]' },
    { op: 'stop', output: '{{c}}' },
  ],
})

describe('runPlan onCheckpoint', () => {
  it('awaits a checkpoint after each top-level step, before the next step starts', async () => {
    const order: string[] = []
    const checkpoints: RunState[] = []
    const result = await runPlan(plan, {
      registry,
      onEvent: (event) => {
        if (event.type === 'step-start' || event.type === 'step-finish') {
          order.push(`${event.type} ${event.path}`)
        }
      },
      onCheckpoint: async (checkpoint) => {
        await sleep(5)
        order.push(`checkpoint ${checkpoint.cursor.index}`)
        checkpoints.push(JSON.parse(JSON.stringify(checkpoint)))
      },
    })
    expect(result.status).toBe('done')
    expect(order.slice(0, 5)).toEqual([
      'step-start steps[0]',
      'step-finish steps[0]',
      'checkpoint 1',
      'step-start steps[1]',
      'step-finish steps[1]',
    ])
    expect(checkpoints.map((checkpoint) => checkpoint.cursor)).toEqual([
      { index: 1 },
      { index: 2 },
      { index: 3 },
    ])
    expect(checkpoints[1]).toMatchObject({
      runId: result.runId,
      values: { a: 'one', b: 'two one' },
      usage: { calls: 2 },
    })
    expect(checkpoints[1]?.pending).toBeUndefined()
  })

  it('resumes an interrupted run from its last checkpoint without re-running a finished step', async () => {
    const calls: string[] = []
    const models = offlineModels({
      onCall: ({ options }) => calls.push(JSON.stringify(options.prompt).slice(-40)),
    })
    let saved: string | undefined
    // The process "dies" while step 2 runs: the checkpoint after step 1 is the last one stored.
    const dying = new AbortController()
    const first = await runPlan(plan, {
      registry,
      models,
      signal: dying.signal,
      onCheckpoint: (checkpoint) => {
        if (checkpoint.cursor.index === 2) {
          saved = JSON.stringify(checkpoint)
          dying.abort()
        }
      },
    })
    expect(first.status).toBe('cancelled')
    expect(calls).toHaveLength(2)
    const checkpoint = JSON.parse(saved!) as RunState
    const resumedEvents: RunEvent[] = []
    const resumed = await resumeRun(checkpoint, undefined, {
      registry,
      models,
      onEvent: (event) => resumedEvents.push(event),
    })
    expect(resumed.status).toBe('done')
    expect(resumed.output).toBe('three two one')
    // Only step 2 ran again: steps 0 and 1 kept their values and were not called again.
    expect(calls).toHaveLength(3)
    expect(resumed.runId).toBe(first.runId)
    expect(resumed.usage.calls).toBe(3)
    expect(resumedEvents[0]).toMatchObject({ type: 'run-start', resumed: true })
    expect(resumedEvents[0]?.sequence).toBe(checkpoint.sequence)
    expect(resumedEvents.find((event) => event.type === 'step-start')).toMatchObject({
      path: 'steps[2]',
    })
  })

  it('accepts the resumeRun(plan, checkpoint, options) form and refuses a checkpoint of another plan', async () => {
    let last: RunState | undefined
    await runPlan(plan, {
      registry,
      onCheckpoint: (checkpoint) => {
        last = checkpoint
      },
    })
    const resumed = await resumeRun(plan, { ...last!, stateId: 'other' }, { registry })
    expect(resumed.status).toBe('done')
    const other = parsePlan({ steps: [{ op: 'stop', output: 'x' }] })
    await expect(resumeRun(other, last!, { registry })).rejects.toMatchObject({
      code: 'RUN_STATE_INVALID',
    })
  })

  it('fails the run with CHECKPOINT_FAILED, before the next step, when a checkpoint cannot be saved', async () => {
    const result = await runPlan(plan, {
      registry,
      onCheckpoint: () => {
        throw new Error('disk full')
      },
    })
    expect(result.status).toBe('failed')
    expect(result.error).toMatchObject({ code: 'CHECKPOINT_FAILED' })
    expect(result.usage.calls).toBe(1)
  })

  it('resumes a checkpoint once: a second resume of the same state is refused', async () => {
    const resumed = createMemoryResumeStore()
    let first: RunState | undefined
    await runPlan(plan, {
      registry,
      onCheckpoint: (checkpoint) => {
        first ??= checkpoint
      },
    })
    expect((await resumeRun(first!, undefined, { registry, resumed })).status).toBe('done')
    await expect(resumeRun(first!, undefined, { registry, resumed })).rejects.toMatchObject({
      code: 'RUN_STATE_INVALID',
      shortMessage: expect.stringMatching(/already resumed/),
    })
  })
})

describe('runPlan events stream', () => {
  it('streams every event of the run, in order, beside the final result', async () => {
    const run = runPlan(plan, { registry })
    const streamed: RunEvent[] = []
    for await (const event of run.events) streamed.push(event)
    const result = await run
    expect(run.runId).toBe(result.runId)
    // The live step-delta events come besides, unnumbered; the result keeps the others.
    const numbered = streamed.filter((event) => event.type !== 'step-delta')
    expect(numbered.map((event) => event.sequence)).toEqual(
      result.events.map((event) => event.sequence),
    )
    expect(streamed.at(-1)).toMatchObject({ type: 'run-finish', status: 'done' })
  })

  it('holds the run for a slow reader and still finishes (the buffer is bounded)', async () => {
    const loop = parsePlan({
      steps: [
        {
          op: 'loop',
          while: 'true',
          maxIters: 200,
          do: [{ op: 'scratch', action: 'write', key: 'k', value: 'v' }],
        },
        { op: 'stop', output: 'ok' },
      ],
    })
    const run = runPlan(loop, { registry, eventBuffer: 8 })
    let read = 0
    let mostAhead = 0
    let emitted = 0
    const counting = runPlan(loop, { registry, eventBuffer: 8, onEvent: () => void emitted++ })
    for await (const _event of counting.events) {
      read += 1
      mostAhead = Math.max(mostAhead, emitted - read)
      if (read % 50 === 0) await sleep(1)
    }
    expect((await counting).status).toBe('done')
    // A step emits at most a few events past the brake, so the reader is never far behind.
    expect(mostAhead).toBeLessThan(8 + 4)
    await run.events.cancel()
    expect((await run).status).toBe('done')
  })

  it('lets every fanout branch go on once a slow reader catches up', async () => {
    const fanout = parsePlan({
      steps: [
        {
          op: 'fanout',
          saveAs: 'all',
          branches: Array.from({ length: 20 }, (_, index) => ({
            id: `b${index}`,
            steps: [
              { op: 'scratch', action: 'write', key: `k${index}`, value: 1 },
              { op: 'scratch', action: 'write', key: `j${index}`, value: 2 },
            ],
          })),
        },
        { op: 'stop', output: 'ok' },
      ],
    })
    const run = runPlan(fanout, { registry, eventBuffer: 4 })
    let read = 0
    for await (const _event of run.events) {
      read += 1
      if (read % 3 === 0) await sleep(1)
    }
    expect((await run).status).toBe('done')
    expect(read).toBe(86)
  })

  it('ends the stream with the error when the plan is invalid, and rejects the promise', async () => {
    const run = runPlan({ steps: [{ op: 'nope' }] }, { registry })
    await expect(
      (async () => {
        for await (const _event of run.events) {
          // nothing arrives
        }
      })(),
    ).rejects.toMatchObject({ code: 'PLAN_INVALID' })
    await expect(run).rejects.toMatchObject({ code: 'PLAN_INVALID' })
  })
})
