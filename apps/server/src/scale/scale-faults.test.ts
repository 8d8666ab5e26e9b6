import { GetTaskRequest, SendMessageRequest, type Task, TaskState } from '@a2a-js/sdk'
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import { waitFor } from '@baton/testing/processes'
import { hasRedis, type RedisServer } from '@baton/testing/redis'
import { type Kysely, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { loopUntilHeld, storedEscalation } from '../__fixtures__/outside-parties'
import { slowDelegatePlan } from '../__fixtures__/slow-plans'
import { followTask, startTask } from '../a2a/__fixtures__/follow-task'
import type { Database } from '../db/database'
import type { Repositories } from '../db/repositories'
import type { ClusterProcess } from './__fixtures__/cluster'
import { runChecks } from './__fixtures__/run-checks'
import { scaleCluster } from './__fixtures__/scale-cluster'

/** An offline plan of `steps` steps, each asking a demo agent (one charged call) and waiting `ms`. */
const planOf = (ms: number, steps: number) =>
  slowDelegatePlan({ name: `faults-${ms}x${steps}`, ms, steps })

// Two rounds of three members, each call slow enough to kill the process between two of them.
const swarm = {
  id: 'faults-round-robin',
  name: 'Faults round robin',
  strategy: 'round-robin',
  maxRounds: 2,
  agents: [
    { agentId: 'analyst', role: 'worker' },
    { agentId: 'reviewer', role: 'critic' },
    { agentId: 'tester', role: 'worker' },
  ],
}

/** How long a request waits on Redis (BATON_REDIS_TIMEOUT_MS) before its 503. */
const redisTimeoutMs = 2_000

const postgresUrl = inject('postgresUrl')
const canRun = (hasRedis && postgresUrl !== '') || process.env.CI === 'true'
if (!canRun) {
  console.warn('[scale-out fault tests] redis-server or PostgreSQL not found: skipping them.')
}

const cluster = scaleCluster('baton-scale-faults-')
const { started, byName } = cluster
let redis: RedisServer | undefined
let db: Kysely<Database> | undefined
let repositories: Repositories
let checks: ReturnType<typeof runChecks>

beforeAll(async () => {
  if (!canRun) return
  await cluster.start({
    postgresUrl,
    // e serves HTTP only (it takes no run): the A2A tasks it executes are killed with it.
    names: ['a', 'b', 'c', 'd', 'e'],
    environmentOf: { e: { BATON_ROLE: 'api' } },
    // A short lease, so a killed process's runs are taken over within seconds (and its A2A
    // tasks failed).
    environment: {
      BATON_LEASE_MS: '3000',
      BATON_WORKER_CONCURRENCY: '4',
      BATON_REDIS_TIMEOUT_MS: String(redisTimeoutMs),
    },
  })
  redis = cluster.redis
  db = cluster.db
  repositories = cluster.repositories!
  checks = runChecks(repositories)
}, 180_000)

afterAll(() => cluster.close(), 60_000)

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    // A client that gives up: a request that hangs fails the test instead of holding it.
    signal: AbortSignal.timeout(20_000),
  })
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as Record<string, unknown>,
  }
}

/** The ids of the runs of the plan named `name`. */
async function runsNamed(name: string): Promise<string[]> {
  const rows = await db!
    .selectFrom('runs')
    .select('id')
    .where(sql<string>`plan->>'name'`, '=', name)
    .execute()
  return rows.map((row) => row.id)
}

async function messagesOf(url: string, correlationId: string): Promise<{ id: string }[]> {
  const response = await fetch(`${url}/api/v1/conversations/${correlationId}`)
  return ((await response.json()) as { messages: { id: string }[] }).messages
}

/** Posted all at once: one by one, a loaded machine can take longer to post them than to run them. */
async function startRuns(count: number, plan: unknown, targets: ClusterProcess[]) {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const target = targets[index % targets.length]!
      const { status, json } = await post(`${target.url}/api/v1/runs`, { plan })
      expect(status).toBe(202)
      return json.id as string
    }),
  )
}

describe.runIf(canRun)('scale-out faults: four processes on one PostgreSQL and one Redis', () => {
  it('hands the backlog of a SIGTERMed worker to the others: it takes no new job, and every run finishes once, done, none failed', async () => {
    const victim = byName('a')
    const others = [byName('b'), byName('c'), byName('d')]
    // More than the four processes run at once (4 each): a backlog waits in the queue, long
    // enough (3 s a run) to be seen on a loaded machine.
    const ids = await startRuns(40, planOf(1_000, 3), others)
    await waitFor(
      async () => {
        const runs = await Promise.all(ids.map((id) => repositories.runs.find(id)))
        const onVictim = runs.filter((run) => run?.status === 'running' && run.executedBy === 'a')
        const queued = runs.filter((run) => run?.status === 'queued')
        return onVictim.length >= 2 && queued.length >= 10 ? true : undefined
      },
      { timeoutMs: 60_000, intervalMs: 50, what: 'a backlog while the victim runs jobs' },
    ).catch((error: unknown) => {
      console.log(victim.output().slice(-4_000))
      throw error
    })
    victim.child.kill('SIGTERM')
    expect(await victim.exited).toBe(0)
    const runs = await checks.waitUntilFinal(ids, 'the backlog to finish', 180_000)
    const failed = runs.filter((run) => run.status !== 'done')
    expect(failed.map((run) => [run.id, run.status, run.error])).toEqual([])
    await checks.assertRanOnce(ids, 3)
    await checks.assertLedgerMatches(ids)
  }, 300_000)

  it('takes over the swarm runs of a process killed with SIGKILL: each finishes once, usage = ledger', async () => {
    const [first, second] = [byName('b'), byName('c')]
    const live = ['b', 'c', 'd']
    expect((await post(`${first.url}/api/v1/swarms`, swarm)).status).toBeLessThan(300)
    const ids: string[] = []
    for (let index = 0; index < 6; index++) {
      const target = index % 2 === 0 ? first : second
      const { status, json } = await post(`${target.url}/api/v1/swarms/${swarm.id}/runs`, {
        input: `[[sleep:700]] swarm task ${index}`,
      })
      expect(status).toBeLessThan(300)
      ids.push(json.runId as string)
    }
    // The victim runs a swarm that has spent (a member call on the books) and not finished.
    const victim = await waitFor(
      async () => {
        for (const id of ids) {
          const run = await repositories.runs.find(id)
          if (run?.status !== 'running' || !live.includes(run.executedBy ?? '')) continue
          const books = await repositories.ledger.booksOfRun(id)
          if (books.usage.calls >= 2) return byName(run.executedBy!)
        }
        return undefined
      },
      { timeoutMs: 60_000, intervalMs: 50, what: 'a swarm run mid-way' },
    )
    await victim.stop({ signal: 'SIGKILL' })
    const held = (await Promise.all(ids.map((id) => repositories.runs.find(id)))).filter(
      (run) => run?.status === 'running' && run.executedBy === victim.name,
    )
    expect(held.length).toBeGreaterThan(0)

    const runs = await checks.waitUntilFinal(ids, 'the swarm runs after the kill', 120_000)
    expect(runs.map((run) => run.status)).toEqual(ids.map(() => 'done'))
    for (const id of ids) {
      const events = (await repositories.runs.events(id)).map((stored) => stored.event)
      expect(events.filter((event) => event.type === 'swarm-finish')).toHaveLength(1)
    }
    for (const run of held) {
      const after = runs.find((item) => item.id === run!.id)!
      expect(after.executedBy).not.toBe(victim.name)
      expect(after.attempt).toBe(2)
    }
    await checks.assertLedgerMatches(ids)
  }, 300_000)

  it('stops the run of a worker stalled past its lease as soon as it comes back: another finishes it once, usage = ledger', async () => {
    const workers = started.filter(
      (server) => server.name !== 'e' && server.child.exitCode === null && !server.child.signalCode,
    )
    expect(workers.length).toBeGreaterThanOrEqual(2)
    // One step of 20 s: the worker stalls in it, and would go on with it when it comes back.
    const [id] = await startRuns(1, planOf(20_000, 1), workers)
    const holder = await waitFor(
      async () => {
        const run = await repositories.runs.find(id!)
        const by = workers.find((server) => server.name === run?.executedBy)
        return run?.status === 'running' ? by : undefined
      },
      { timeoutMs: 30_000, what: 'a worker to run it' },
    )
    // Stalled (a long pause, a frozen machine): its job's lock lapses, another worker takes it.
    process.kill(holder.child.pid!, 'SIGSTOP')
    try {
      await waitFor(
        async () => {
          const run = await repositories.runs.find(id!)
          return run?.attempt === 2 && run.executedBy !== holder.name ? true : undefined
        },
        { timeoutMs: 30_000, what: 'another worker to take the run over' },
      )
    } finally {
      process.kill(holder.child.pid!, 'SIGCONT')
    }
    const resumedAt = Date.now()
    const seen = holder.output().length
    // Back, it finds it could not renew the lock, and stops the step rather than spend on it.
    await waitFor(
      async () =>
        holder.output().slice(seen).includes('run taken over by another process')
          ? true
          : undefined,
      { timeoutMs: 8_000, what: 'the stalled worker to stop the run when it came back' },
    )
    console.log(
      `[scale-faults] a stalled worker stopped its taken-over run ${Date.now() - resumedAt} ms after it came back`,
    )
    const [run] = await checks.waitUntilFinal([id!], 'the run taken over', 90_000)
    expect(run).toMatchObject({ status: 'done', attempt: 2 })
    expect(run!.executedBy).not.toBe(holder.name)
    await checks.assertRanOnce([id!], 1)
    // Its call cut short charged nothing: the run's usage is what the ledger holds.
    await checks.assertLedgerMatches([id!])
  }, 120_000)

  it('keeps the end the others stored for the A2A task of a process stalled past its lease: back, it stops its agent within a mark, and its caller is given the stored end', async () => {
    const stalled = byName('e')
    const others = started.filter(
      (server) => server !== stalled && server.child.exitCode === null && !server.child.signalCode,
    )
    const clientOf = (server: ClusterProcess) =>
      new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
        `${server.url}/a2a/analyst/.well-known/agent-card.json`,
        '',
      )
    const client = await clientOf(stalled)
    // Its agent works two minutes: long past the stall, so only a stop makes it answer sooner.
    const text = `[[sleep:120000]] a late review ${crypto.randomUUID()}`
    // A blocking send: its caller waits for the answer the stalled process gives.
    const answered = client
      .sendMessage(
        SendMessageRequest.fromJSON({
          message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
        }),
      )
      .then(
        (task) => ({ task: task as Task, error: undefined }),
        (error: unknown) => ({ task: undefined, error: error as Error }),
      )
    const taskId = await waitFor(
      async () => {
        const { rows } = await sql<{ id: string; status_state: string }>`
          select id, status_state from a2a_tasks where history like ${`%${text}%`}`.execute(db!)
        return rows[0]?.status_state === 'TASK_STATE_WORKING' ? rows[0].id : undefined
      },
      { timeoutMs: 30_000, what: 'the task working on the process to stall' },
    )
    // Stalled (a long pause, a frozen machine): its marks lapse, the others fail its task.
    process.kill(stalled.child.pid!, 'SIGSTOP')
    try {
      await waitFor(
        async () => {
          const { rows } = await sql<{ status_state: string }>`
            select status_state from a2a_tasks where id = ${taskId}`.execute(db!)
          return rows[0]?.status_state === 'TASK_STATE_FAILED' ? true : undefined
        },
        { timeoutMs: 30_000, what: 'the others to fail the stalled process’s task' },
      )
    } finally {
      process.kill(stalled.child.pid!, 'SIGCONT')
    }
    const resumedAt = Date.now()
    // It comes back and finds the others' cancel at its next mark (a third of a lease): its
    // agent stops rather than spend on a task whose end is stored, and its caller is given that
    // end.
    const { task, error } = await Promise.race([
      answered,
      new Promise<never>((_resolve, reject) =>
        setTimeout(
          () => reject(new Error('the stalled process went on with its agent after it came back')),
          20_000,
        ).unref(),
      ),
    ])
    console.log(
      `[scale-faults] a stalled process stopped its agent ${Date.now() - resumedAt} ms after it came back`,
    )
    // Not an internal error: the task as the others stored it, with why.
    expect(error).toBeUndefined()
    expect(task?.id).toBe(taskId)
    expect(task?.status?.state).toBe(TaskState.TASK_STATE_FAILED)
    for (const stored of [
      task,
      ...(await Promise.all(
        [stalled, ...others].map(async (server) =>
          (await clientOf(server)).getTask(GetTaskRequest.fromJSON({ id: taskId })),
        ),
      )),
    ]) {
      expect(stored?.status?.state).toBe(TaskState.TASK_STATE_FAILED)
      const why = stored?.status?.message?.parts[0]?.content
      expect(why?.$case === 'text' ? why.value : undefined).toBe(
        'The server executing this task stopped before the agent answered.',
      )
    }
  }, 120_000)

  it('fails the A2A task of a process killed with SIGKILL once its lease lapses: a follower on another process hears the end, GetTask anywhere shows why', async () => {
    const victim = byName('e')
    // The two processes still alive after the swarm test's kill.
    const [other, third] = started.filter(
      (server) => server !== victim && server.child.exitCode === null && !server.child.signalCode,
    ) as [ClusterProcess, ClusterProcess]
    const clientOf = (server: ClusterProcess) =>
      new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
        `${server.url}/a2a/analyst/.well-known/agent-card.json`,
        '',
      )
    const task = await startTask(await clientOf(victim), '[[sleep:120000]] a review cut short')
    const following = followTask(await clientOf(other), task.id)
    await waitFor(
      async () => (following.states.includes(TaskState.TASK_STATE_WORKING) ? true : undefined),
      { timeoutMs: 30_000, what: 'the follower to see the task working' },
    )
    await victim.stop({ signal: 'SIGKILL' })
    const killedAt = Date.now()
    await following.done
    const endedAfterMs = Date.now() - killedAt
    console.log(`[scale-faults] A2A task of a killed process ended after ${endedAfterMs} ms`)
    expect(following.states.at(-1)).toBe(TaskState.TASK_STATE_FAILED)
    // Its mark lapses within a lease (3 s), and it is failed at the second look after.
    expect(endedAfterMs).toBeLessThan(4 * 3_000 + 5_000)
    for (const server of [other, third]) {
      const stored = (await (
        await clientOf(server)
      ).getTask(GetTaskRequest.fromJSON({ id: task.id }))) as Task
      expect(stored.status?.state).toBe(TaskState.TASK_STATE_FAILED)
      const why = stored.status?.message?.parts[0]?.content
      expect(why?.$case === 'text' ? why.value : undefined).toBe(
        'The server executing this task stopped before the agent answered.',
      )
    }
  }, 120_000)

  it('finishes every run once when Redis is down 20 s with a 3 s lease: none lost, none taken over twice', async () => {
    const survivors = started.filter(
      (server) => server.child.exitCode === null && !server.child.signalCode,
    )
    expect(survivors.length).toBe(2)
    // As many as the two survivors run at once (4 each): every one is in flight through the outage.
    const ids = await startRuns(8, planOf(1_000, 40), survivors)
    await waitFor(
      async () => {
        const runs = await Promise.all(ids.map((id) => repositories.runs.find(id)))
        const running = runs.filter((run) => run?.status === 'running')
        return running.length === ids.length ? true : undefined
      },
      { timeoutMs: 60_000, what: 'every run to be in flight' },
    )
    await redis!.restart({ downMs: 20_000 })
    const runs = await checks.waitUntilFinal(ids, 'the runs after the outage', 180_000)
    expect(runs.map((run) => run.status)).toEqual(ids.map(() => 'done'))
    const attempts = runs.map((run) => run.attempt)
    console.log(`[scale-faults] attempts after a 20 s outage: ${attempts.join(' ')}`)
    // Taken over at most once: the lease ran out once, during the outage.
    for (const attempt of attempts) expect(attempt).toBeLessThanOrEqual(2)
    await checks.assertRanOnce(ids, 40)
    // A run taken over while its first process still ran it may have spent there after the
    // takeover was read (on the books under that attempt, not in its usage): never the reverse.
    for (const run of runs) {
      const books = await repositories.ledger.booksOfRun(run.id)
      expect(books.usage.calls).toBeGreaterThanOrEqual(run.usage.calls)
      if (run.attempt === 1) expect(books.usage.calls).toBe(run.usage.calls)
    }
  }, 300_000)

  it('answers a request Redis cannot take within the bound with 503 and nothing done, and a retry with its Idempotency-Key makes one run', async () => {
    const server = started.find((item) => item.child.exitCode === null && !item.child.signalCode)!
    const tag = Date.now()
    const plan = { ...planOf(10, 1), name: `outage-${tag}` }
    const message = (correlationId: string) => ({
      from: { agentId: 'outage-sender' },
      // A broadcast to a registered agent: delivered and stored, and nobody runs on it.
      to: { agentId: 'analyst' },
      type: 'broadcast',
      content: 'are you there?',
      correlationId,
    })

    // Redis up: a retried request gets the first answer; the same key with another body is refused.
    const key = { 'idempotency-key': `runs-${tag}` }
    const first = await post(`${server.url}/api/v1/runs`, { plan }, key)
    expect(first.status).toBe(202)
    const again = await post(`${server.url}/api/v1/runs`, { plan }, key)
    expect(again.status).toBe(202)
    expect(again.json.id).toBe(first.json.id)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    const other = await post(`${server.url}/api/v1/runs`, { plan: planOf(10, 2) }, key)
    expect(other.status).toBe(422)
    expect(other.json.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' })
    expect(await runsNamed(plan.name)).toEqual([first.json.id])
    const messageKey = { 'idempotency-key': `messages-${tag}` }
    const sent = await post(`${server.url}/api/v1/messages`, message(`up-${tag}`), messageKey)
    const resent = await post(`${server.url}/api/v1/messages`, message(`up-${tag}`), messageKey)
    expect([sent.status, resent.status]).toEqual([202, 202])
    const envelope = (sent.json.envelope as { id: string }).id
    expect((resent.json.envelope as { id: string }).id).toBe(envelope)
    // Delivered once: the recipient's process stores it (and would store a late one too).
    await waitFor(
      async () => ((await messagesOf(server.url, `up-${tag}`)).length > 0 ? true : undefined),
      { timeoutMs: 30_000, what: 'the message to be stored' },
    )
    expect((await messagesOf(server.url, `up-${tag}`)).map((item) => item.id)).toEqual([envelope])

    // Redis killed: each request is answered within the bound, 503, nothing stored to act later.
    await redis!.kill()
    const downPlan = { ...planOf(10, 1), name: `outage-down-${tag}` }
    const downKey = { 'idempotency-key': `down-${tag}` }
    const askedAt = Date.now()
    const refused = await post(`${server.url}/api/v1/runs`, { plan: downPlan }, downKey)
    const refusedMessage = await post(`${server.url}/api/v1/messages`, message(`down-${tag}`))
    const waitedMs = Date.now() - askedAt
    expect(refused.status).toBe(503)
    expect(refused.json.error).toMatchObject({ code: 'QUEUE_UNAVAILABLE' })
    expect(refusedMessage.status).toBe(503)
    expect(refusedMessage.json.error).toMatchObject({ code: 'TRANSPORT_FAILED' })
    console.log(`[scale-faults] two requests refused in ${waitedMs} ms with Redis down`)
    // An A2A message: its task (stored before it runs) failed, saying why; not rejected, which
    // says the agent (or the loop guard) decided against it.
    const a2a = await new ClientFactory({
      transports: [new JsonRpcTransportFactory()],
    }).createFromUrl(`${server.url}/a2a/analyst/.well-known/agent-card.json`, '')
    const task = (await a2a.sendMessage(
      SendMessageRequest.fromJSON({
        message: {
          messageId: crypto.randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: 'still there?' }],
        },
      }),
    )) as Task
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED)
    const why = task.status?.message?.parts[0]?.content
    expect(why?.$case === 'text' ? why.value : '').toMatch(/TRANSPORT_FAILED/)
    expect(waitedMs).toBeLessThan(2 * redisTimeoutMs + 10_000)
    expect(await runsNamed(downPlan.name)).toEqual([])

    await redis!.start()
    // The client retries with the same key until Redis takes the run: one run, done.
    const retried = await waitFor(
      async () => {
        const answer = await post(`${server.url}/api/v1/runs`, { plan: downPlan }, downKey)
        return answer.status === 202 ? answer : undefined
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'Redis to take a run again' },
    )
    const [done] = await checks.waitUntilFinal([retried.json.id as string], 'the retried run')
    expect(done?.status).toBe('done')
    // Long enough for anything queued during the outage to have acted: nothing did.
    await new Promise((resolve) => setTimeout(resolve, 5_000))
    expect(await runsNamed(downPlan.name)).toEqual([retried.json.id])
    expect(await messagesOf(server.url, `down-${tag}`)).toEqual([])
  }, 180_000)

  it('answers an allow or a stop Redis cannot take with 503 and does nothing: the chain stays held, and is allowed once Redis is back', async () => {
    const server = started.find((item) => item.child.exitCode === null && !item.child.signalCode)!
    const correlationId = `held-${Date.now()}`
    // Held by the guard all processes share.
    expect(await loopUntilHeld(server.url, correlationId)).toMatchObject({
      code: 'LOOP_GUARD_ESCALATED',
    })
    type Held = { id: string; correlationId: string; lastMessage: { id: string } }
    const escalationsOf = async (status: string): Promise<Held[]> => {
      const response = await fetch(`${server.url}/api/v1/escalations?status=${status}`)
      return ((await response.json()) as { escalations: Held[] }).escalations
    }
    const open = await storedEscalation(server.url, correlationId, { timeoutMs: 30_000 })

    await redis!.kill()
    try {
      const allowed = await post(`${server.url}/api/v1/escalations/${open.id}/allow`, {
        extraHops: 2,
      })
      const stopped = await post(`${server.url}/api/v1/escalations/${open.id}/stop`, {
        reason: 'enough',
      })
      // Not a 500: the guard could not be asked, nothing was done, and the call can be made again.
      expect(allowed.status, JSON.stringify(allowed.json)).toBe(503)
      expect(allowed.json.error).toMatchObject({
        code: 'TRANSPORT_FAILED',
        message: expect.stringContaining(`escalation "${open.id}"`),
      })
      expect(stopped.status, JSON.stringify(stopped.json)).toBe(503)
      expect(stopped.json.error).toMatchObject({ code: 'TRANSPORT_FAILED' })
    } finally {
      await redis!.start()
    }
    expect((await escalationsOf('open')).map((each) => each.id)).toContain(open.id)
    const allowed = await waitFor(
      async () => {
        const answer = await post(`${server.url}/api/v1/escalations/${open.id}/allow`, {
          extraHops: 2,
        })
        return answer.status === 503 ? undefined : answer
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'Redis to take the allow' },
    )
    expect(allowed.status, JSON.stringify(allowed.json)).toBe(200)
    expect(allowed.json.escalation).toMatchObject({ id: open.id, status: 'allowed' })
    // The held message is delivered once, and the decision stored.
    await waitFor(
      async () => {
        const messages = await messagesOf(server.url, correlationId)
        return messages.some((message) => message.id === open.lastMessage.id) ? true : undefined
      },
      { timeoutMs: 30_000, what: 'the held message to be delivered and stored' },
    )
    const messages = await messagesOf(server.url, correlationId)
    expect(messages.filter((message) => message.id === open.lastMessage.id)).toHaveLength(1)
    expect((await escalationsOf('allowed')).map((each) => each.id)).toContain(open.id)
  }, 180_000)

  it('runs a run stored by a process that died before queueing it: unkeyed, another process queues it; keyed, the retry gets it, queued', async () => {
    const alive = started.filter((item) => item.child.exitCode === null && !item.child.signalCode)
    const workers = alive.filter((item) => item.name !== 'e')
    expect(workers.length).toBeGreaterThanOrEqual(2)
    const [victim, survivor] = workers as [ClusterProcess, ClusterProcess]
    const tag = Date.now()
    const unkeyed = { ...planOf(10, 1), name: `unqueued-${tag}` }
    const keyed = { ...planOf(10, 1), name: `unqueued-keyed-${tag}` }
    const key = { 'idempotency-key': `unqueued-${tag}` }

    // Redis stopped where it stands: the victim stores both runs, and their jobs wait unread
    // in Redis's socket. The victim is killed with them unanswered, then Redis is killed too
    // (a machine lost with both, say), so the jobs were never added: the runs are stored and
    // queued, and no queue holds them.
    redis!.pause()
    const asked = [
      post(`${victim.url}/api/v1/runs`, { plan: unkeyed }).catch(() => undefined),
      post(`${victim.url}/api/v1/runs`, { plan: keyed }, key).catch(() => undefined),
    ]
    const [unkeyedId, keyedId] = await waitFor(
      async () => {
        const [first, second] = [await runsNamed(unkeyed.name), await runsNamed(keyed.name)]
        return first.length === 1 && second.length === 1 ? [first[0]!, second[0]!] : undefined
      },
      // Within the Redis bound, after which the victim would answer 503 and delete them.
      { timeoutMs: redisTimeoutMs, intervalMs: 10, what: 'the victim to store both runs' },
    )
    await victim.stop({ signal: 'SIGKILL' })
    await Promise.all(asked)
    await redis!.kill()
    for (const id of [unkeyedId, keyedId]) {
      const run = await repositories.runs.find(id)
      expect({ status: run?.status, attempt: run?.attempt }).toEqual({
        status: 'queued',
        attempt: 0,
      })
    }

    // The client of the keyed request retries once the dead request's claim is past its minute.
    // Redis still down: the run it is to be given cannot be queued, 503...
    await sql`update idempotency_keys set created_at = now() - interval '2 minutes' where key = ${key['idempotency-key']}`.execute(
      db!,
    )
    const refused = await post(`${survivor.url}/api/v1/runs`, { plan: keyed }, key)
    expect(refused.status).toBe(503)
    expect(refused.json.error).toMatchObject({ code: 'QUEUE_UNAVAILABLE' })
    // ...and with Redis back, the next retry (not a minute later) is given that run, queued.
    await redis!.start()
    const retried = await waitFor(
      async () => {
        const answer = await post(`${survivor.url}/api/v1/runs`, { plan: keyed }, key)
        expect(answer.status, JSON.stringify(answer.json)).not.toBe(409)
        return answer.status === 202 ? answer : undefined
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'the keyed retry to be answered' },
    )
    expect(retried.headers.get('idempotent-replayed')).toBe('true')
    expect(retried.json.id).toBe(keyedId)

    // Both run to their end, once each; nothing else was made.
    const runs = await checks.waitUntilFinal([unkeyedId, keyedId], 'the runs never queued', 60_000)
    expect(runs.map((run) => [run.status, run.attempt])).toEqual([
      ['done', 1],
      ['done', 1],
    ])
    await checks.assertRanOnce([unkeyedId, keyedId], 1)
    expect(await runsNamed(unkeyed.name)).toEqual([unkeyedId])
    expect(await runsNamed(keyed.name)).toEqual([keyedId])
  }, 120_000)
})
