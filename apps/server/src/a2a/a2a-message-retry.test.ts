import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { SendMessageRequest, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk'
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import Fastify from 'fastify'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  createTestServices,
  gatedAnswers,
  type TestServices,
} from './__fixtures__/a2a-test-services'
import { createA2APlugin } from './a2a-plugin'

/** A server with the A2A plugin on `services`, and a client of one of its agents. */
async function serve(services: TestServices, agentId = 'analyst') {
  const app = Fastify()
  await app.register(createA2APlugin(services))
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const clientOf = (id: string) =>
    new ClientFactory({ transports: [new JsonRpcTransportFactory({})] }).createFromUrl(
      `${base}/a2a/${id}/.well-known/agent-card.json`,
      '',
    )
  return { app, base, client: await clientOf(agentId), clientOf }
}

const message = (messageId: string, text: string, options: Record<string, unknown> = {}) =>
  SendMessageRequest.fromJSON({
    message: { messageId, role: 'ROLE_USER', parts: [{ text }] },
    ...options,
  })

const answerText = (task: Task) => {
  const part = task.artifacts?.[0]?.parts?.[0]?.content
  return part?.$case === 'text' ? part.value : undefined
}

const runsOf = (services: TestServices, text: string) =>
  services.calls.filter((call) => call.input === text).length

const closing: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close()
})

async function started(options: Parameters<typeof createTestServices>[0] = {}) {
  const services = await createTestServices(options)
  const served = await serve(services)
  closing.push(
    () => services.close(),
    () => served.app.close(),
  )
  return { services, ...served }
}

describe('a message sent again with its messageId (A2A 1.0 §3.3.1)', () => {
  it('is answered with the task it started, and the agent runs once', async () => {
    const { services, client } = await started()
    const first = (await client.sendMessage(message('retry-1', 'how many incidents?'))) as Task
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)

    const again = (await client.sendMessage(message('retry-1', 'how many incidents?'))) as Task
    expect(again.id).toBe(first.id)
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(answerText(again)).toBe('Incident Analyst says: how many incidents?')
    expect(runsOf(services, 'how many incidents?')).toBe(1)

    // A new messageId is a new message: a task of its own.
    const other = (await client.sendMessage(message('retry-2', 'how many incidents?'))) as Task
    expect(other.id).not.toBe(first.id)
    expect(runsOf(services, 'how many incidents?')).toBe(2)
  })

  it('sent many times at once while the first runs: one run, every request answered with its settled task', async () => {
    const { gates, answer } = gatedAnswers()
    const { services, client } = await started({ answer })
    const sends = Array.from({ length: 6 }, () =>
      client.sendMessage(message('at-once', 'slow work')),
    )
    // Answered at once while it runs: the same task, working.
    await vi.waitFor(() => expect(gates.has('slow work')).toBe(true))
    const meanwhile = (await client.sendMessage(
      message('at-once', 'slow work', { configuration: { returnImmediately: true } }),
    )) as Task
    expect(meanwhile.status?.state).toBe(TaskState.TASK_STATE_WORKING)
    gates.get('slow work')?.()

    const answers = (await Promise.all(sends)) as Task[]
    expect(new Set(answers.map((task) => task.id))).toEqual(new Set([meanwhile.id]))
    for (const task of answers) {
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
      expect(answerText(task)).toBe('done: slow work')
    }
    expect(runsOf(services, 'slow work')).toBe(1)
  })

  it('streamed again, is answered with the settled task in one event, and runs nothing', async () => {
    const { services, client } = await started()
    const first = (await client.sendMessage(message('stream-1', 'stream this'))) as Task
    const events = []
    for await (const event of client.sendMessageStream(message('stream-1', 'stream this'))) {
      events.push(event)
    }
    expect(events).toHaveLength(1)
    const payload = events[0]?.payload
    expect(payload?.$case).toBe('task')
    const task = payload?.$case === 'task' ? payload.value : undefined
    expect(task?.id).toBe(first.id)
    expect(task?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(runsOf(services, 'stream this')).toBe(1)
  })

  it('streamed again while the first runs, follows the task to its end (as it is, then its updates), and runs nothing', async () => {
    const { gates, answer } = gatedAnswers()
    const { services, client } = await started({ answer })
    // Should the test fail while the task waits, its clean-up lets it end first.
    closing.push(async () => gates.get('long work')?.())
    const first = client.sendMessage(message('stream-2', 'long work'))
    await vi.waitFor(() => expect(gates.has('long work')).toBe(true))
    const events: StreamResponse[] = []
    const following = (async () => {
      for await (const event of client.sendMessageStream(message('stream-2', 'long work'))) {
        events.push(event)
      }
    })()
    // The retry sees the task working at once, not only once it has ended.
    await vi.waitFor(() => expect(events.length).toBeGreaterThan(0))
    expect(events[0]?.payload).toMatchObject({
      $case: 'task',
      value: { status: { state: TaskState.TASK_STATE_WORKING } },
    })
    gates.get('long work')?.()
    await following
    const task = (await first) as Task
    expect(events[0]?.payload?.value).toMatchObject({ id: task.id })
    const texts = events.flatMap((event) =>
      event.payload?.$case === 'artifactUpdate'
        ? (event.payload.value.artifact?.parts ?? []).map((part) => part.content?.value)
        : [],
    )
    expect(texts.at(-1)).toBe('done: long work')
    expect(events.at(-1)?.payload).toMatchObject({
      $case: 'statusUpdate',
      value: { status: { state: TaskState.TASK_STATE_COMPLETED } },
    })
    expect(runsOf(services, 'long work')).toBe(1)
  })

  it('with other parts is refused -32602 naming the messageId, and the first task stays as it was', async () => {
    const { services, client, base } = await started()
    const first = (await client.sendMessage(message('reused', 'first question'))) as Task
    const response = await fetch(`${base}/a2a/analyst`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'SendMessage',
        params: {
          message: { messageId: 'reused', role: 'ROLE_USER', parts: [{ text: 'another one' }] },
        },
      }),
    })
    const body = (await response.json()) as {
      id: unknown
      error?: { code: number; message: string }
    }
    expect(body).toMatchObject({
      id: 7,
      error: {
        code: -32602,
        message: expect.stringContaining('params.message.messageId "reused"'),
      },
    })
    expect(runsOf(services, 'another one')).toBe(0)
    const again = (await client.sendMessage(message('reused', 'first question'))) as Task
    expect(again.id).toBe(first.id)
    expect(answerText(again)).toBe('Incident Analyst says: first question')
  })

  it('is another message for another agent: the same messageId starts a task of its own there', async () => {
    const { services, client, clientOf } = await started()
    const analyst = (await client.sendMessage(message('shared-id', 'who are you?'))) as Task
    const lead = (await (
      await clientOf('lead')
    ).sendMessage(message('shared-id', 'who are you?'))) as Task
    expect(lead.id).not.toBe(analyst.id)
    expect(answerText(lead)).toBe('Lead says: who are you?')
    expect(runsOf(services, 'who are you?')).toBe(2)
  })

  it('after the server restarted, is answered with the task stored before, and runs nothing', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-a2a-retry-'))
    closing.push(() => rm(dataDir, { recursive: true, force: true }))
    const before = await createTestServices({ dataDir })
    const beforeServer = await serve(before)
    const first = (await beforeServer.client.sendMessage(
      message('across-restart', 'remember me'),
    )) as Task
    await beforeServer.app.close()
    await before.close()

    const { services, client } = await started({ dataDir })
    const again = (await client.sendMessage(message('across-restart', 'remember me'))) as Task
    expect(again.id).toBe(first.id)
    expect(answerText(again)).toBe('Incident Analyst says: remember me')
    expect(runsOf(services, 'remember me')).toBe(0)
  })
})
