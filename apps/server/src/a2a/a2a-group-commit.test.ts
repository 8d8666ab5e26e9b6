import {
  ListTasksRequest,
  type Message,
  SendMessageRequest,
  type Task,
  TaskState,
} from '@a2a-js/sdk'
import { type Client, ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  createTestServices,
  gatedAnswers,
  type TestServices,
} from './__fixtures__/a2a-test-services'
import { startTask } from './__fixtures__/follow-task'
import { createA2APlugin } from './a2a-plugin'

// One process, no Redis: the task store may keep a blocking message's task until it settles.
describe('A2A tasks through the group commit (one process)', () => {
  let services: TestServices
  let app: FastifyInstance
  let client: Client
  const { gates, answer } = gatedAnswers()
  beforeAll(async () => {
    services = await createTestServices({ answer })
    app = Fastify()
    await app.register(createA2APlugin(services))
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({})],
    }).createFromUrl(`${base}/a2a/analyst/.well-known/agent-card.json`, '')
  })
  afterAll(async () => {
    await app?.close()
    await services?.close()
  })

  type TaskRows = { a2a_tasks: { id: string; status_state: string | null } }
  const storedState = async (id: string) => {
    const row = await (services.db as unknown as Kysely<TaskRows>)
      .selectFrom('a2a_tasks')
      .select('status_state')
      .where('id', '=', id)
      .executeTakeFirst()
    return row?.status_state ?? undefined
  }

  it('has stored the task a client was told of, when it was told', async () => {
    // Answered at once (returnImmediately): the client knows the task while it runs.
    const started = await startTask(client, 'at once')
    expect(await storedState(started.id)).toMatch(/SUBMITTED|WORKING/)
    gates.get('at once')?.()

    // A blocking send is answered once the task has settled, and stored by then.
    const sending = client.sendMessage(
      SendMessageRequest.fromJSON({
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'block' }] },
      }),
    )
    await vi.waitFor(() => expect(gates.has('block')).toBe(true))
    gates.get('block')?.()
    const answered = (await sending) as Task
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(await storedState(answered.id)).toBe('TASK_STATE_COMPLETED')
  })

  it('lists a blocking send working while it runs, and completed with its answer once answered', async () => {
    // Its client hears of the task only once settled; a listing meanwhile finds it working.
    const sending = client.sendMessage(
      SendMessageRequest.fromJSON({
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'listed' }] },
      }),
    )
    await vi.waitFor(() => expect(gates.has('listed')).toBe(true))
    const textOf = (message: Message | undefined) =>
      message?.parts[0]?.content?.$case === 'text' ? message.parts[0].content.value : undefined
    const listed = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 100 }))
    const running = listed.tasks.find((task) => textOf(task.history?.[0]) === 'listed')
    expect(running?.status?.state).toBe(TaskState.TASK_STATE_WORKING)
    expect(running?.artifacts).toEqual([])
    gates.get('listed')?.()
    const answered = (await sending) as Task
    expect(answered.id).toBe(running?.id)
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(answered.history?.map(textOf)).toEqual(['listed'])
    const answer = answered.artifacts[0]?.parts[0]?.content
    expect(answer?.$case === 'text' ? answer.value : undefined).toBe('done: listed')
    expect(await storedState(answered.id)).toBe('TASK_STATE_COMPLETED')
  })

  it('answers concurrent blocking sends, each stored once settled', async () => {
    const texts = Array.from({ length: 8 }, (_, index) => `many ${index}`)
    const sending = texts.map((text) =>
      client.sendMessage(
        SendMessageRequest.fromJSON({
          message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
        }),
      ),
    )
    await vi.waitFor(() => expect(texts.every((text) => gates.has(text))).toBe(true))
    for (const text of texts) gates.get(text)?.()
    const answers = (await Promise.all(sending)) as Task[]
    for (const answer of answers) {
      expect(answer.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
      expect(await storedState(answer.id)).toBe('TASK_STATE_COMPLETED')
    }
  })
})
