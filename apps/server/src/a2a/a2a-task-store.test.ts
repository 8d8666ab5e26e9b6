import { GetTaskRequest, SendMessageRequest, type Task, TaskState } from '@a2a-js/sdk'
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createTestServices, type TestServices } from './__fixtures__/a2a-test-services'
import { createA2APlugin } from './a2a-plugin'

// The run's PostgreSQL cluster (global setup); without the binaries it is '' (never under CI).
describe.skipIf(!inject('postgresUrl'))('A2A tasks on PostgreSQL', () => {
  let services: TestServices
  beforeAll(async () => {
    services = await createTestServices({ postgres: true })
  })
  afterAll(async () => {
    await services?.close()
  })

  it('stores and finds tasks with the SDK task store, across two servers on one database, and a message sent again to the other is answered with its task', async () => {
    const serve = async () => {
      const app = Fastify()
      await app.register(createA2APlugin(services))
      return { app, base: await app.listen({ port: 0, host: '127.0.0.1' }) }
    }
    const client = async (base: string) =>
      new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
        `${base}/a2a/analyst/.well-known/agent-card.json`,
        '',
      )
    const message = SendMessageRequest.fromJSON({
      message: { messageId: 'pg-1', role: 'ROLE_USER', parts: [{ text: 'on postgres' }] },
    })
    const first = await serve()
    const task = (await (await client(first.base)).sendMessage(message)) as Task
    await first.app.close()
    const second = await serve()
    try {
      const found = await (await client(second.base)).getTask(
        GetTaskRequest.fromJSON({ id: task.id }),
      )
      expect(found.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
      expect(found.artifacts[0]?.parts[0]?.content?.value).toBe(
        'Incident Analyst says: on postgres',
      )
      // The message sent again to the other server: the task it started, not a second run.
      const runs = services.calls.length
      const again = (await (await client(second.base)).sendMessage(message)) as Task
      expect(again.id).toBe(task.id)
      expect(services.calls.length).toBe(runs)
    } finally {
      await second.app.close()
    }
  })
})
