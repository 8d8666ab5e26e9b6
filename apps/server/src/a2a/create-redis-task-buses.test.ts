import { CancelTaskRequest, GetTaskRequest, SubscribeToTaskRequest, TaskState } from '@a2a-js/sdk'
import { type Client, ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import { hasRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createTestServices, type TestServices } from './__fixtures__/a2a-test-services'
import { followTask, startTask } from './__fixtures__/follow-task'
import { createA2APlugin } from './a2a-plugin'
import type { HostedAgentAnswer, HostedAgentRun } from './a2a-services'

const canRun = hasRedis || process.env.CI === 'true'
if (!canRun) console.warn('[A2A task buses] redis-server not found: skipping cross-process tasks.')

// Two servers ("processes": each its own app, task buses and executor) on one database and
// one Redis, as in a scale-out deployment.
describe.runIf(canRun)('A2A tasks on any process (createRedisTaskBuses)', () => {
  let redis: RedisServer
  let services: TestServices
  const apps: FastifyInstance[] = []
  beforeAll(async () => {
    redis = await startRedisServer({ persistence: 'append-only' })
    services = await createTestServices()
  })
  afterAll(async () => {
    await services?.close()
    await redis?.stop()
  })
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()))
    services.calls.length = 0
  })

  async function serve(runHostedAgent?: (input: HostedAgentRun) => Promise<HostedAgentAnswer>) {
    const app = Fastify()
    apps.push(app)
    await app.register(
      createA2APlugin({
        ...services,
        redisUrl: redis.url,
        // A stop fails what still executes after this long (the server's bound is 10 s).
        stopWithinMs: 200,
        ...(runHostedAgent ? { runHostedAgent } : {}),
      }),
    )
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    return { app, client: await sdkClient(`${base}/a2a/analyst/.well-known/agent-card.json`) }
  }

  const sdkClient = (cardUrl: string): Promise<Client> =>
    new ClientFactory({ transports: [new JsonRpcTransportFactory({})] }).createFromUrl(cardUrl, '')

  it('streams every update of a task executed by process B to a subscriber on process A, to its end', async () => {
    let finish: (() => void) | undefined
    const gate = new Promise<void>((resolve) => {
      finish = resolve
    })
    const answer = async (input: HostedAgentRun): Promise<HostedAgentAnswer> => {
      services.calls.push(input)
      await gate
      return {
        text: `done: ${input.input}`,
        usage: { calls: 1, tokens: 2, costUsd: 0 },
        correlationId: 'c',
        hop: 0,
      }
    }
    const a = await serve(answer)
    const b = await serve(answer)
    const task = await startTask(b.client, 'review the refunds')
    await vi.waitFor(() => expect(services.calls).toHaveLength(1))

    const following = followTask(a.client, task.id)
    await vi.waitFor(() => expect(following.states).toContain(TaskState.TASK_STATE_WORKING))
    finish?.()
    await following.done
    expect(following.texts).toEqual(['done: review the refunds'])
    expect(following.states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED)
    // Only B ran it.
    expect(services.calls).toHaveLength(1)
  })

  it('cancels from process A a task executed by process B: B’s agent stops, both see it canceled', async () => {
    const a = await serve()
    const b = await serve()
    const task = await startTask(b.client, 'wait for me')
    await vi.waitFor(() => expect(services.calls).toHaveLength(1))
    const onB = followTask(b.client, task.id)
    await vi.waitFor(() => expect(onB.states.length).toBeGreaterThan(0))

    const cancelled = await a.client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }))
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED)
    // The agent host's signal on B was aborted: it stops working and spending.
    await vi.waitFor(() => expect(services.calls[0]?.signal?.aborted).toBe(true))
    await onB.done
    expect(onB.states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED)
    const stored = await b.client.getTask(GetTaskRequest.fromJSON({ id: task.id }))
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_CANCELED)
  })

  it('ends a subscription with the stored task when the executing process goes away', async () => {
    const a = await serve()
    const b = await serve()
    const task = await startTask(b.client, 'wait for ever')
    await vi.waitFor(() => expect(services.calls).toHaveLength(1))
    const following = followTask(a.client, task.id)
    await vi.waitFor(() => expect(following.states).toContain(TaskState.TASK_STATE_WORKING))
    // B stops: the task it still executes ends as failed (the server stopped), and the
    // follower on A hears that end instead of waiting for ever.
    await b.app.close()
    await following.done
    expect(following.states.at(-1)).toBe(TaskState.TASK_STATE_FAILED)
  }, 30_000)

  it('refuses to follow an unknown task on any process', async () => {
    const a = await serve()
    await expect(
      (async () => {
        for await (const _ of a.client.resubscribeTask(
          SubscribeToTaskRequest.fromJSON({ id: crypto.randomUUID() }),
        ));
      })(),
    ).rejects.toThrow(/not found/i)
  })
})
