import { Message } from '@a2a-js/sdk'
import { ServerCallContext } from '@a2a-js/sdk/server'
import { describe, expect, it } from 'vitest'
import type { A2ATaskStore } from './a2a-task-store'
import { TASK_START_STATE_KEY, type TaskClaim, TaskStarts } from './task-starts'

const message = (messageId: string, text = 'hello') =>
  Message.fromJSON({ messageId, role: 'ROLE_USER', parts: [{ text }] })

const contextOf = () => new ServerCallContext({ tenant: 'analyst#0xabc' })

/** What the database holds: tasks by the message that started them; and how often it was asked. */
function storeOf(stored: Record<string, string> = {}) {
  const asked: string[] = []
  const store = {
    async startedBy(messageId: string) {
      asked.push(messageId)
      const id = stored[messageId]
      return id ? { id, parts: [{ text: 'hello' }] } : undefined
    },
  } as unknown as A2ATaskStore
  return { store, asked, stored }
}

/** Claims `messageId` and starts task `taskId` for it, as a request and its executor do. */
async function startTask(starts: TaskStarts, messageId: string, taskId: string) {
  const context = contextOf()
  const start = await starts.claim(message(messageId), context)
  if (!('claim' in start)) throw new Error(`${messageId} was started before`)
  context.state.set(TASK_START_STATE_KEY, start.claim)
  starts.began(context, taskId)
  starts.end(start.claim)
}

describe('TaskStarts', () => {
  it('frees a message whose request ended before it started a task: the next one claims it', async () => {
    const { store } = storeOf()
    const starts = new TaskStarts(store)
    const first = await starts.claim(message('m'), contextOf())
    // A duplicate waits on the first...
    const waiting = starts.claim(message('m'), contextOf())
    starts.end((first as { claim: TaskClaim }).claim)
    // ...and claims it once the first gave up.
    expect(await waiting).toHaveProperty('claim')
  })

  it('remembers the latest messages up to its limit, and asks the database for older ones', async () => {
    const { store, asked, stored } = storeOf()
    const starts = new TaskStarts(store, 10)
    for (let index = 0; index < 12; index += 1)
      await startTask(starts, `m-${index}`, `task-${index}`)
    // Their tasks were stored meanwhile (the first one's at least).
    stored['m-0'] = 'task-0'
    asked.length = 0
    // Remembered: answered without asking.
    expect(await starts.claim(message('m-11'), contextOf())).toEqual({ started: 'task-11' })
    expect(asked).toEqual([])
    // Forgotten here (the oldest went when the book was full): found in the database.
    expect(await starts.claim(message('m-0'), contextOf())).toEqual({ started: 'task-0' })
    expect(asked).toEqual(['m-0'])
  })

  it('keeps a message whose request still runs, however many come after it', async () => {
    const { store, asked } = storeOf()
    const starts = new TaskStarts(store, 10)
    // Started, its task named, its request not over (a blocking send still waiting).
    const context = contextOf()
    const running = await starts.claim(message('long-run'), context)
    context.state.set(TASK_START_STATE_KEY, (running as { claim: TaskClaim }).claim)
    starts.began(context, 'task-long')
    for (let index = 0; index < 30; index += 1)
      await startTask(starts, `m-${index}`, `task-${index}`)
    asked.length = 0
    // Not stored yet (a process alone stores it when it settles): only the book knows it.
    expect(await starts.claim(message('long-run'), contextOf())).toEqual({ started: 'task-long' })
    expect(asked).toEqual([])
  })

  it('refuses a messageId sent again with other parts, naming the field', async () => {
    const { store } = storeOf()
    const starts = new TaskStarts(store)
    await startTask(starts, 'm', 'task-1')
    await expect(starts.claim(message('m', 'something else'), contextOf())).rejects.toMatchObject({
      message: expect.stringContaining('params.message.messageId "m"'),
    })
  })
})
