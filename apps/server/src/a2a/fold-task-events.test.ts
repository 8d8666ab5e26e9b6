import { Task, TaskArtifactUpdateEvent, type TaskState, TaskStatusUpdateEvent } from '@a2a-js/sdk'
import {
  AgentEvent,
  type AgentExecutionEvent,
  InMemoryTaskStore,
  ResultManager,
  ServerCallContext,
} from '@a2a-js/sdk/server'
import { describe, expect, it } from 'vitest'
import { foldTaskEvents, joinPieces } from './fold-task-events'

const task = (state: keyof typeof TaskState) =>
  AgentEvent.task(Task.fromJSON({ id: 't', contextId: 'c', status: { state } }))
const status = (state: keyof typeof TaskState, text?: string) =>
  AgentEvent.statusUpdate(
    TaskStatusUpdateEvent.fromJSON({
      taskId: 't',
      contextId: 'c',
      status: {
        state,
        ...(text
          ? { message: { messageId: `m-${text}`, role: 'ROLE_AGENT', parts: [{ text }] } }
          : {}),
      },
    }),
  )
const piece = (
  artifactId: string,
  text: string,
  append: boolean,
  extra: { name?: string; description?: string; metadata?: object; eventMetadata?: object } = {},
) =>
  AgentEvent.artifactUpdate(
    TaskArtifactUpdateEvent.fromJSON({
      taskId: 't',
      contextId: 'c',
      append,
      ...(extra.eventMetadata ? { metadata: extra.eventMetadata } : {}),
      artifact: {
        artifactId,
        parts: [{ text }],
        ...(extra.name ? { name: extra.name } : {}),
        ...(extra.description ? { description: extra.description } : {}),
        ...(extra.metadata ? { metadata: extra.metadata } : {}),
      },
    }),
  )

/** The SDK's own fold: every event through a `ResultManager`, one by one. */
async function oneByOne(events: AgentExecutionEvent[], base?: Task): Promise<Task | undefined> {
  const store = new InMemoryTaskStore(() => 'reference')
  const context = new ServerCallContext({ tenant: 'reference' })
  if (base) await store.save(base, context)
  const manager = new ResultManager(store, context)
  for (const event of events) await manager.processEvent(event)
  return store.load('t', context)
}

describe('foldTaskEvents', () => {
  it('comes to the task the SDK comes to applying the events one by one', async () => {
    const events = [
      task('TASK_STATE_SUBMITTED'),
      status('TASK_STATE_WORKING', 'on it'),
      piece('answer', 'The ', false, { name: 'answer' }),
      piece('answer', 'refunds ', true, { metadata: { a: 1 }, eventMetadata: { x: 1 } }),
      piece('notes', 'n1', true),
      piece('answer', 'are ', true, { description: 'the answer', metadata: { b: 2 } }),
      piece('answer', 'fine.', true, { name: 'final answer', eventMetadata: { y: 2 } }),
      status('TASK_STATE_WORKING'),
      piece('answer', 'Replaced.', false),
      piece('answer', ' Again.', true),
      piece('notes', 'n2', true),
      status('TASK_STATE_COMPLETED', 'done'),
    ]
    const folded = await foldTaskEvents('t', events)
    expect(folded).toEqual(await oneByOne(events))
    expect(folded?.artifacts.map((artifact) => artifact.parts.length)).toEqual([2, 2])
  })

  it('applies a later turn onto the stored task, and leaves the events as they were', async () => {
    const stored = Task.fromJSON({
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_INPUT_REQUIRED' },
      artifacts: [{ artifactId: 'answer', parts: [{ text: 'Earlier.' }] }],
    })
    const events = [
      status('TASK_STATE_WORKING'),
      piece('answer', ' More', true),
      piece('answer', ' and more.', true),
    ]
    const before = structuredClone(events)
    expect(await foldTaskEvents('t', events, async () => stored)).toEqual(
      await oneByOne(events, stored),
    )
    expect(events).toEqual(before)
    expect(await foldTaskEvents('t', events, async () => undefined)).toBeUndefined()
  })

  it('joins the pieces of one artifact in a row into one update, and nothing else', () => {
    const joined = joinPieces([
      task('TASK_STATE_SUBMITTED'),
      piece('answer', 'a', false),
      piece('answer', 'b', true),
      piece('answer', 'c', true),
      piece('notes', 'n', true),
      piece('answer', 'd', true),
      piece('answer', 'e', false),
    ])
    expect(joined.map((event) => event.kind)).toEqual([
      'task',
      'artifactUpdate',
      'artifactUpdate',
      'artifactUpdate',
      'artifactUpdate',
    ])
    const texts = joined.flatMap((event) =>
      event.kind === 'artifactUpdate'
        ? [
            event.data
              .artifact!.parts.map((part) =>
                part.content?.$case === 'text' ? part.content.value : '',
              )
              .join(''),
          ]
        : [],
    )
    expect(texts).toEqual(['abc', 'n', 'd', 'e'])
  })
})
