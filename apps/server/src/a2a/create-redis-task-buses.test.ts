import {
  CancelTaskRequest,
  GetTaskRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  Task,
  TaskArtifactUpdateEvent,
  TaskState,
  TaskStatusUpdateEvent,
} from '@a2a-js/sdk'
import { type Client, ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import { AgentEvent, type AgentExecutionEvent, type ExecutionEventBus } from '@a2a-js/sdk/server'
import { hasRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import Fastify, { type FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { createTestServices, type TestServices } from './__fixtures__/a2a-test-services'
import { followTask, startTask } from './__fixtures__/follow-task'
import { startSlowLink } from './__fixtures__/slow-link'
import { createA2APlugin } from './a2a-plugin'
import type { HostedAgentAnswer, HostedAgentRun } from './a2a-services'
import { createRedisTaskBuses, type RedisTaskBuses } from './create-redis-task-buses'
import { EXECUTOR_GONE_REASON, failTasks, tasksInProgress } from './tasks-left-in-progress'

const canRun = hasRedis || process.env.CI === 'true'
if (!canRun) console.warn('[A2A task buses] redis-server not found: skipping cross-process tasks.')

/** A user's message of one text part, with a new `messageId` unless given. */
const messageRequest = (text: string, messageId: string = crypto.randomUUID()) =>
  SendMessageRequest.fromJSON({
    message: { messageId, role: 'ROLE_USER', parts: [{ text }] },
  })

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

  async function serve(
    runHostedAgent?: (input: HostedAgentRun) => Promise<HostedAgentAnswer>,
    on: TestServices = services,
  ) {
    const app = Fastify()
    apps.push(app)
    await app.register(
      createA2APlugin({
        ...on,
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
    const { answer, finish } = gatedAnswer()
    const a = await serve(answer)
    const b = await serve(answer)
    const task = await startTask(b.client, 'review the refunds')
    await vi.waitFor(() => expect(services.calls).toHaveLength(1))

    const following = followTask(a.client, task.id)
    await vi.waitFor(() => expect(following.states).toContain(TaskState.TASK_STATE_WORKING))
    finish()
    await following.done
    expect(following.texts).toEqual(['done: review the refunds'])
    expect(following.states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED)
    // Only B ran it.
    expect(services.calls).toHaveLength(1)
  })

  it('gives a subscriber on process A the task as it stands, then what comes after: never back to submitted, the answer once', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const answer = async (input: HostedAgentRun): Promise<HostedAgentAnswer> => {
      services.calls.push(input)
      input.onDelta?.('The refunds ')
      await gate
      input.onDelta?.('are fine.')
      return {
        text: 'The refunds are fine.',
        usage: { calls: 1, tokens: 2, costUsd: 0 },
        correlationId: 'c',
        hop: 0,
      }
    }
    const a = await serve(answer)
    const b = await serve(answer)
    // Streamed on B: its client is given the answer as it is written.
    let taskId: string | undefined
    const streamed = (async () => {
      for await (const event of b.client.sendMessageStream(messageRequest('check the refunds'))) {
        if (event.payload?.$case === 'task') taskId ??= event.payload.value.id
      }
    })()
    try {
      // What a follower is first given is the stored task: B has stored it working, with the
      // first piece of the answer (written behind, for followers elsewhere).
      await vi.waitFor(
        async () => {
          expect(taskId).toBeDefined()
          const { rows } = await sql<{ state: string; artifacts: string | null }>`
            select status_state as state, artifacts from a2a_tasks where id = ${taskId!}`.execute(
            services.db,
          )
          expect(rows[0]?.state).toBe('TASK_STATE_WORKING')
          expect(rows[0]?.artifacts).toContain('The refunds ')
        },
        { timeout: 10_000 },
      )
      const following = followTask(a.client, taskId!)
      await vi.waitFor(() => expect(following.answer()).toBe('The refunds '))
      release()
      await Promise.all([following.done, streamed])
      // Working from the first event on, to the end; never submitted again.
      expect(following.states[0]).toBe(TaskState.TASK_STATE_WORKING)
      expect(following.states).not.toContain(TaskState.TASK_STATE_SUBMITTED)
      expect(following.states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED)
      expect(following.answer()).toBe('The refunds are fine.')
      // Only the piece written after it subscribed came as a piece.
      expect(following.texts).toEqual(['are fine.', 'The refunds are fine.'])
      expect(services.calls).toHaveLength(1)
    } finally {
      release()
    }
  })

  it('answers a message sent again to process A, while B runs the task it started, with that task once settled: one run', async () => {
    const { answer, finish } = gatedAnswer()
    const a = await serve(answer)
    const b = await serve(answer)
    const message = messageRequest('count the refunds', 'sent-twice')
    const first = b.client.sendMessage(message)
    await vi.waitFor(() => expect(services.calls).toHaveLength(1))
    // B has stored the task it started (among many processes, a task's first save commits
    // before it runs on): A finds it, and waits for it to settle.
    const again = a.client.sendMessage(message)
    let answered = false
    void again.then(() => {
      answered = true
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(answered).toBe(false)
    finish()
    const [fromB, fromA] = (await Promise.all([first, again])) as [Task, Task]
    expect(fromA.id).toBe(fromB.id)
    expect(fromA.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(fromA.artifacts[0]?.parts[0]?.content?.value).toBe('done: count the refunds')
    expect(services.calls).toHaveLength(1)
  })

  it('follows on process A, streamed again, the task B runs for that message: working at once, then to its end; one run', async () => {
    const { answer, finish } = gatedAnswer()
    const a = await serve(answer)
    const b = await serve(answer)
    const message = messageRequest('sum the refunds', 'streamed-twice')
    const first = b.client.sendMessage(message)
    await vi.waitFor(() => expect(services.calls).toHaveLength(1))
    const states: (TaskState | undefined)[] = []
    const following = (async () => {
      for await (const event of a.client.sendMessageStream(message)) {
        const payload = event.payload
        if (payload?.$case === 'task') states.push(payload.value.status?.state)
        if (payload?.$case === 'statusUpdate') states.push(payload.value.status?.state)
      }
    })()
    try {
      // Working at once (the stored task), not only once it has ended.
      await vi.waitFor(() => expect(states[0]).toBe(TaskState.TASK_STATE_WORKING))
    } finally {
      finish()
    }
    await following
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(((await first) as Task).status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
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

  it('refuses on process A a message to the task B is running: no second run, and the cancel still stops B’s', async () => {
    const a = await serve()
    const b = await serve()
    const task = await startTask(b.client, 'wait for me')
    await vi.waitFor(() => expect(services.calls).toHaveLength(1))
    const followUp = SendMessageRequest.fromJSON({
      message: {
        messageId: crypto.randomUUID(),
        taskId: task.id,
        role: 'ROLE_USER',
        parts: [{ text: 'and then?' }],
      },
    })
    await expect(a.client.sendMessage(followUp)).rejects.toMatchObject({ envelopeCode: -32004 })
    expect(services.calls).toHaveLength(1)
    await a.client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }))
    await vi.waitFor(() => expect(services.calls[0]?.signal?.aborted).toBe(true))
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

  /** Lets the agent answer when `finish` is called; stored in progress before then. */
  const gatedAnswer = (calls = services.calls) => {
    let finish: (() => void) | undefined
    const gate = new Promise<void>((resolve) => {
      finish = resolve
    })
    const answer = async (input: HostedAgentRun): Promise<HostedAgentAnswer> => {
      calls.push(input)
      await gate
      return {
        text: `done: ${input.input}`,
        usage: { calls: 1, tokens: 2, costUsd: 0 },
        correlationId: 'c',
        hop: 0,
      }
    }
    return { answer, finish: () => finish?.() }
  }
  /** The task stored in progress, failed as another process fails the task of one it lost. */
  const failedElsewhere = async () => {
    const [inProgress] = await vi.waitFor(async () => {
      const tasks = await tasksInProgress(services.db, {
        updatedBefore: Date.now() + 60_000,
        limit: 10,
      })
      expect(tasks).toHaveLength(1)
      return tasks
    })
    expect(await failTasks(services.db, [inProgress!], EXECUTOR_GONE_REASON)).toEqual([
      inProgress!.id,
    ])
    return inProgress!.id
  }
  const statusText = (task: Task | undefined) => {
    const content = task?.status?.message?.parts[0]?.content
    return content?.$case === 'text' ? content.value : undefined
  }

  it('answers a blocking send whose task another process ended meanwhile with the task as stored, not an internal error', async () => {
    const { answer, finish } = gatedAnswer()
    const b = await serve(answer)
    const sending = b.client.sendMessage(messageRequest('review the refunds'))
    await vi.waitFor(() => expect(services.calls).toHaveLength(1))
    const taskId = await failedElsewhere()
    // The agent answers after all: its end is refused, the caller is given the stored one.
    finish()
    const answered = (await sending) as Task
    expect(answered.id).toBe(taskId)
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_FAILED)
    expect(statusText(answered)).toBe(EXECUTOR_GONE_REASON)
    const stored = await b.client.getTask(GetTaskRequest.fromJSON({ id: taskId }))
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_FAILED)
  })

  it('ends the stream of a task another process ended meanwhile with the task as stored', async () => {
    const { answer, finish } = gatedAnswer()
    const b = await serve(answer)
    const states: TaskState[] = []
    let last: Task | undefined
    const streaming = (async () => {
      for await (const event of b.client.sendMessageStream(messageRequest('review the refunds'))) {
        const payload = event.payload
        if (payload?.$case === 'task') {
          last = payload.value
          states.push(payload.value.status!.state)
        }
        if (payload?.$case === 'statusUpdate') states.push(payload.value.status!.state)
      }
    })()
    await vi.waitFor(() => expect(states).toContain(TaskState.TASK_STATE_WORKING))
    const taskId = await failedElsewhere()
    finish()
    await streaming
    expect(last?.id).toBe(taskId)
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_FAILED)
    expect(statusText(last)).toBe(EXECUTOR_GONE_REASON)
  })

  it('keeps why another process ended a task when its executor here is cancelled, and answers the cancel: not cancelable', async () => {
    const { answer, finish } = gatedAnswer()
    const b = await serve(answer)
    const task = await startTask(b.client, 'review the refunds')
    await vi.waitFor(() => expect(services.calls).toHaveLength(1))
    expect(await failedElsewhere()).toBe(task.id)
    const refused = await b.client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id })).then(
      () => undefined,
      (error: unknown) => error as { envelopeCode?: number; message: string },
    )
    expect(refused).toMatchObject({ envelopeCode: -32002 })
    expect(refused?.message).toMatch(/not cancelable/)
    // The refused end of the executor here is not stored over the stored one's reason.
    finish()
    const stored = await b.client.getTask(GetTaskRequest.fromJSON({ id: task.id }))
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_FAILED)
    expect(statusText(stored)).toBe(EXECUTOR_GONE_REASON)
  })

  // Two processes on one PostgreSQL, as deployed: what one has not committed, the other
  // cannot read.
  describe.skipIf(!inject('postgresUrl'))('on PostgreSQL', () => {
    let onPostgres: TestServices
    beforeAll(async () => {
      onPostgres = await createTestServices({ postgres: true })
    })
    afterAll(async () => {
      await onPostgres?.close()
    })

    it('runs once a message whose copies reach processes A and B before either has stored its task; a copy with other parts is refused', async () => {
      const { db, calls } = onPostgres
      // Until released, the task table takes no write (reads go on): A cannot store the task
      // it starts, so B finds none stored.
      let release!: () => void
      const released = new Promise<void>((resolve) => {
        release = resolve
      })
      let locked!: () => void
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve
      })
      const holding = db.transaction().execute(async (trx) => {
        await sql`lock table a2a_tasks in share mode`.execute(trx)
        locked()
        await released
      })
      await isLocked
      const waitingToStore = async () =>
        (
          await sql<{ waiting: number }>`select count(*)::int as waiting from pg_stat_activity
            where wait_event_type = 'Lock' and datname = current_database()`.execute(db)
        ).rows[0]!.waiting
      const { answer, finish } = gatedAnswer(calls)
      try {
        const a = await serve(answer, onPostgres)
        const b = await serve(answer, onPostgres)
        const c = await serve(answer, onPostgres)
        const message = messageRequest('count the refunds', 'before-either-stored')
        const fromA = a.client.sendMessage(message)
        await vi.waitFor(async () => expect(await waitingToStore()).toBe(1))
        const fromB = b.client.sendMessage(message)
        // On a third process: its own book knows nothing of it.
        const otherParts = c.client
          .sendMessage(messageRequest('count the invoices', 'before-either-stored'))
          .then(
            () => undefined,
            (error: unknown) => error as Error,
          )
        // B waits for the task A starts, C refuses the other parts: neither starts a task (whose
        // store would wait too).
        await new Promise((resolve) => setTimeout(resolve, 300))
        expect(await waitingToStore()).toBe(1)
        expect((await otherParts)?.message).toMatch(/messageId "before-either-stored"/)
        release()
        await vi.waitFor(() => expect(calls).toHaveLength(1))
        await new Promise((resolve) => setTimeout(resolve, 200))
        finish()
        const [first, again] = (await Promise.all([fromA, fromB])) as [Task, Task]
        expect(again.id).toBe(first.id)
        expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
        expect(calls).toHaveLength(1)
      } finally {
        release()
        finish()
        await holding
      }
    })
  })

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

// The buses alone, two "processes" (each its own connections) on one Redis, with a store that
// lags what the executor has published, as the task store's write-behind does between two saves
// that must commit.
describe.runIf(canRun)(
  'a follower that subscribes while the store lags (createRedisTaskBuses)',
  () => {
    let redis: RedisServer
    const connections: Redis[] = []
    const buses: RedisTaskBuses[] = []
    beforeAll(async () => {
      redis = await startRedisServer()
    })
    afterAll(async () => {
      await Promise.all(buses.splice(0).map((item) => item.close()))
      for (const connection of connections.splice(0)) connection.disconnect()
      await redis?.stop()
    })

    /** What the database holds: the first save only (the later ones are written behind). */
    const stored = new Map<string, Task>()
    // Connected before use, as the server connects them (a subscribe sent while ioredis still
    // checks that a new connection is ready breaks that check).
    const connect = async (url = redis.url) => {
      const connection = new Redis(url, { lazyConnect: true })
      connections.push(connection)
      await connection.connect()
      return connection
    }
    const process = async (options: { subscriberUrl?: string; leaseMs?: number } = {}) => {
      const publisher = await connect()
      const subscriber = await connect(options.subscriberUrl)
      const made = createRedisTaskBuses({
        publisher,
        subscriber,
        loadTask: async (taskId) => stored.get(taskId),
        leaseMs: options.leaseMs ?? 3_000,
      })
      buses.push(made)
      return Object.assign(made, { publisher, subscriber })
    }
    const taskOf = (id: string, state: TaskState): Task =>
      Task.fromJSON({ id, contextId: 'c', status: { state: TaskState[state] } })
    const status = (taskId: string, state: TaskState) =>
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({
          taskId,
          contextId: 'c',
          status: { state: TaskState[state] },
        }),
      )
    const chunk = (taskId: string, text: string, append: boolean) =>
      AgentEvent.artifactUpdate(
        TaskArtifactUpdateEvent.fromJSON({
          taskId,
          contextId: 'c',
          append,
          artifact: { artifactId: 'answer', parts: [{ text }] },
        }),
      )
    /**
     * Each event a bus delivers, as "task:STATE" (and ":…", the text of its artifacts, when it
     * has any), "status:STATE" or "text:…", and its end.
     */
    const heard = (bus: ExecutionEventBus) => {
      const events: string[] = []
      const finished = new Promise<void>((resolve) => bus.on('finished', () => resolve()))
      bus.on('event', (event: AgentExecutionEvent) => {
        if (event.kind === 'task') {
          const text = event.data.artifacts
            .flatMap((artifact) => artifact.parts)
            .map((part) => (part.content?.$case === 'text' ? part.content.value : '?'))
            .join('')
          events.push(`task:${TaskState[event.data.status!.state]}${text ? `:${text}` : ''}`)
        }
        if (event.kind === 'statusUpdate')
          events.push(`status:${TaskState[event.data.status!.state]}`)
        if (event.kind === 'artifactUpdate') {
          const content = event.data.artifact?.parts[0]?.content
          events.push(`text:${content?.$case === 'text' ? content.value : '?'}`)
        }
      })
      return { events, finished }
    }

    /**
     * A task executed by process B, stored as submitted (its first save, before its client
     * hears of it) and working on B (not stored yet), and process A (made with `aOptions`) to
     * follow it from.
     */
    const working = async (aOptions?: Parameters<typeof process>[0]) => {
      const b = await process()
      const a = await process(aOptions)
      const id = crypto.randomUUID()
      const executing = b.createOrGetByTaskId(id)
      stored.set(id, taskOf(id, TaskState.TASK_STATE_SUBMITTED))
      executing.publish(AgentEvent.task(taskOf(id, TaskState.TASK_STATE_SUBMITTED)))
      executing.publish(status(id, TaskState.TASK_STATE_WORKING))
      return { a, b, id, executing }
    }

    it('hears what was published before it subscribed as one task, as it stands, then the live events, to the end', async () => {
      const { a, id, executing } = await working()
      executing.publish(chunk(id, 'The refunds ', false))

      const following = heard(a.getByTaskId(id, undefined)!)
      await vi.waitFor(
        () => expect(following.events).toContain('task:TASK_STATE_WORKING:The refunds '),
        { timeout: 5_000 },
      )
      executing.publish(chunk(id, 'are fine.', true))
      executing.publish(status(id, TaskState.TASK_STATE_COMPLETED))
      stored.set(id, taskOf(id, TaskState.TASK_STATE_COMPLETED))
      executing.finished()
      await following.finished
      // Not the log one event at a time after the stored task its client was just given: that
      // took it back to submitted, and told the first piece of the answer again.
      expect(following.events).toEqual([
        'task:TASK_STATE_WORKING:The refunds ',
        'text:are fine.',
        'status:TASK_STATE_COMPLETED',
      ])
    })

    it('hears the last events of an execution before its end, when its subscription lags the executor’s mark', async () => {
      // A's subscribed connection hears Redis 600 ms late; A looks for the executor's mark
      // every 100 ms, on a connection without that lag.
      const link = await startSlowLink(redis.url, 600)
      let a: Awaited<ReturnType<typeof process>> | undefined
      try {
        const made = await working({ subscriberUrl: link.url, leaseMs: 300 })
        a = made.a
        const { id, executing } = made
        const following = heard(a.getByTaskId(id, undefined)!)
        await vi.waitFor(() => expect(following.events).toContain('task:TASK_STATE_WORKING'), {
          timeout: 5_000,
        })

        // The answer, its end, and the mark gone: A sees the mark gone before it hears the rest.
        executing.publish(chunk(id, 'The refunds are fine.', false))
        executing.publish(status(id, TaskState.TASK_STATE_COMPLETED))
        stored.set(id, taskOf(id, TaskState.TASK_STATE_COMPLETED))
        executing.finished()
        await following.finished
        expect(following.events).toEqual([
          'task:TASK_STATE_WORKING',
          'text:The refunds are fine.',
          'status:TASK_STATE_COMPLETED',
        ])
      } finally {
        a?.subscriber.disconnect()
        await link.close()
      }
    })

    it('hears the last events of an execution that ends between its subscription and its look at the log', async () => {
      const { a, b, id, executing } = await working()
      // A's look at the log waits until B has ended (and deleted its log) meanwhile.
      let subscribed!: () => void
      const whenSubscribed = new Promise<void>((resolve) => {
        subscribed = resolve
      })
      let look!: () => void
      const looking = new Promise<void>((resolve) => {
        look = resolve
      })
      const lrange = a.publisher.lrange.bind(a.publisher)
      a.publisher.lrange = (async (...args: Parameters<typeof lrange>) => {
        subscribed()
        await looking
        return lrange(...args)
      }) as typeof a.publisher.lrange
      const following = heard(a.getByTaskId(id, undefined)!)
      await whenSubscribed
      executing.publish(chunk(id, 'The refunds are fine.', false))
      executing.publish(status(id, TaskState.TASK_STATE_COMPLETED))
      stored.set(id, taskOf(id, TaskState.TASK_STATE_COMPLETED))
      executing.finished()
      // Redis has carried out B's last commands (the log's deletion among them: one
      // connection keeps its order), and A's subscribed connection has heard what B published
      // (a PING's answer comes after them). `finished` only queues the commands: without the
      // first PING, A's look could reach Redis before B's deletion, and read the whole log.
      await b.publisher.ping()
      await a.subscriber.ping()
      look()
      await following.finished
      expect(following.events).toEqual([
        'text:The refunds are fine.',
        'status:TASK_STATE_COMPLETED',
        'task:TASK_STATE_COMPLETED',
      ])
    })

    it('gives a follower that arrives mid-stream each chunk once, in order', async () => {
      const { a, id, executing } = await working()
      let sent = 0
      const publishChunk = () => {
        executing.publish(chunk(id, `${sent}`, sent > 0))
        sent += 1
      }
      while (sent < 40) publishChunk()
      const following = heard(a.getByTaskId(id, undefined)!)
      // Chunks go on while it subscribes and reads the log (some are in both), until it has read
      // the log, then a few more.
      while (!following.events.some((event) => event.startsWith('task:'))) {
        for (let burst = 0; burst < 5; burst++) publishChunk()
        await new Promise((resolve) => setImmediate(resolve))
      }
      for (let more = 0; more < 40; more++) publishChunk()
      executing.publish(status(id, TaskState.TASK_STATE_COMPLETED))
      executing.finished()
      await following.finished
      expect(sent).toBeGreaterThan(80)
      // The chunks of the log in the task, each once, and the live ones from the next on.
      const [task, ...rest] = following.events
      const firstLive = Number(rest[0]!.slice('text:'.length))
      expect(firstLive).toBeGreaterThanOrEqual(40)
      expect(task).toBe(
        `task:TASK_STATE_WORKING:${Array.from({ length: firstLive }, (_, index) => index).join('')}`,
      )
      expect(rest).toEqual([
        ...Array.from({ length: sent - firstLive }, (_, index) => `text:${firstLive + index}`),
        'status:TASK_STATE_COMPLETED',
      ])
    })

    /** The cancels a process's executor is asked for (each ends its execution). */
    const cancelsOf = (buses: RedisTaskBuses) => {
      const cancels: string[] = []
      buses.onCancelRequest((taskId, bus) => {
        cancels.push(taskId)
        bus.finished()
      })
      return cancels
    }

    it('cancels an execution whose subscription was down when another process asked, at its next mark', async () => {
      const b = await process()
      const a = await process()
      const cancels = cancelsOf(b)
      const id = crypto.randomUUID()
      b.createOrGetByTaskId(id).publish(AgentEvent.task(taskOf(id, TaskState.TASK_STATE_SUBMITTED)))
      const subscribers = async () =>
        ((await a.publisher.pubsub('NUMSUB', `baton:a2a-task:${id}`)) as [string, number])[1]
      await vi.waitFor(async () => expect(await subscribers()).toBe(1))
      // B's subscribed connection drops: once Redis has seen it go, the word of a cancel
      // reaches no one.
      b.subscriber.disconnect()
      await vi.waitFor(async () => expect(await subscribers()).toBe(0))
      a.requestCancel(id)
      await vi.waitFor(() => expect(cancels).toEqual([id]), { timeout: 5_000 })
      // Ended: what it kept of the task in Redis is gone.
      await vi.waitFor(async () =>
        expect(
          await a.publisher.exists(
            `baton:a2a-task-cancel:${id}`,
            `baton:a2a-task-owner:${id}`,
            `baton:a2a-task-log:${id}`,
          ),
        ).toBe(0),
      )
    })

    it('cancels, once, an execution whose subscription was made after the cancel was asked', async () => {
      const b = await process()
      const a = await process()
      const cancels = cancelsOf(b)
      const id = crypto.randomUUID()
      a.requestCancel(id)
      await vi.waitFor(async () =>
        expect(await a.publisher.exists(`baton:a2a-task-cancel:${id}`)).toBe(1),
      )
      b.createOrGetByTaskId(id)
      await vi.waitFor(() => expect(cancels).toEqual([id]), { timeout: 5_000 })
      // A mark later (a third of the 3 s lease), still once.
      await new Promise((resolve) => setTimeout(resolve, 1_200))
      expect(cancels).toEqual([id])
    })

    it('keeps a cancel for as long as asked (two leases by default), for an executor that comes back late', async () => {
      const a = await process()
      const late = crypto.randomUUID()
      const soon = crypto.randomUUID()
      a.requestCancel(late, { keepMs: 60_000 })
      a.requestCancel(soon)
      const ttlOf = async (id: string) => a.publisher.pttl(`baton:a2a-task-cancel:${id}`)
      await vi.waitFor(async () => expect(await ttlOf(late)).toBeGreaterThan(50_000))
      const soonTtl = await ttlOf(soon)
      expect(soonTtl).toBeGreaterThan(0)
      expect(soonTtl).toBeLessThanOrEqual(6_000)
      // Its executor, made now, is cancelled by it.
      const b = await process()
      const cancels = cancelsOf(b)
      b.createOrGetByTaskId(late)
      await vi.waitFor(() => expect(cancels).toEqual([late]), { timeout: 5_000 })
    })

    it('does not give a follower the events of an execution that died before this one', async () => {
      const dead = await process()
      const b = await process()
      const a = await process()
      const id = crypto.randomUUID()
      stored.set(id, taskOf(id, TaskState.TASK_STATE_INPUT_REQUIRED))
      const first = dead.createOrGetByTaskId(id)
      first.publish(status(id, TaskState.TASK_STATE_WORKING))
      first.publish(chunk(id, 'from the dead process', false))
      // Killed: its connection is gone, nothing of it is cleaned up.
      await vi.waitFor(async () =>
        expect(await dead.publisher.llen(`baton:a2a-task-log:${id}`)).toBe(2),
      )
      dead.publisher.disconnect()

      // The task's next turn runs on B.
      const executing = b.createOrGetByTaskId(id)
      executing.publish(status(id, TaskState.TASK_STATE_WORKING))
      executing.publish(chunk(id, 'from B', false))
      const following = heard(a.getByTaskId(id, undefined)!)
      await vi.waitFor(() => expect(following.events).toContain('task:TASK_STATE_WORKING:from B'), {
        timeout: 5_000,
      })
      executing.publish(status(id, TaskState.TASK_STATE_COMPLETED))
      executing.finished()
      await following.finished
      // B's turn applied to the task as stored, nothing of the dead process's.
      expect(following.events).toEqual([
        'task:TASK_STATE_WORKING:from B',
        'status:TASK_STATE_COMPLETED',
      ])
    })
  },
)
