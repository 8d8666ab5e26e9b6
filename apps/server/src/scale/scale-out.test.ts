import {
  CancelTaskRequest,
  GetTaskRequest,
  SendMessageRequest,
  type Task,
  TaskState,
} from '@a2a-js/sdk'
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import { waitFor } from '@baton/testing/processes'
import { hasRedis, type RedisServer } from '@baton/testing/redis'
import { readSse } from '@baton/testing/sse'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { cutShortPlan as cutShortPlanOf, slowDelegatePlan } from '../__fixtures__/slow-plans'
import { followTask, startTask } from '../a2a/__fixtures__/follow-task'
import type { Repositories } from '../db/repositories'
import type { ClusterProcess } from './__fixtures__/cluster'
import { runChecks } from './__fixtures__/run-checks'
import { scaleCluster } from './__fixtures__/scale-cluster'

const analyst = '0x1111111111111111111111111111111111111111'
const reviewer = '0x2222222222222222222222222222222222222222'

/** A short offline plan: each step asks a demo agent (one charged call) and waits `ms`. */
const planOf = (ms: number, steps = 2) => slowDelegatePlan({ name: `scale-${ms}`, ms, steps })

// Killed in its second step's wait on the analyst, a process dies mid-step, after it spent.
const cutShortPlan = cutShortPlanOf({ name: 'scale-cut-short', waiter: analyst, waitMs: 4000 })
const cutShortFinishes = ['steps[0]', 'steps[1].then[0]', 'steps[1].then[1]', 'steps[1]']

const postgresUrl = inject('postgresUrl')
const canRun = (hasRedis && postgresUrl !== '') || process.env.CI === 'true'
if (!canRun) {
  console.warn('[scale-out tests] redis-server or PostgreSQL not found: skipping them.')
}

const cluster = scaleCluster('baton-scale-')
const { byName } = cluster
let processes: ClusterProcess[] = []
let redis: RedisServer | undefined
let repositories: Repositories

beforeAll(async () => {
  if (!canRun) return
  processes = await cluster.start({
    postgresUrl,
    // d serves HTTP only: it adds runs to the queue and never takes one.
    names: ['a', 'b', 'c', 'd'],
    environmentOf: { d: { BATON_ROLE: 'api' } },
    // A short lease, so a killed process's runs are taken over within seconds.
    environment: { BATON_LEASE_MS: '3000', BATON_WORKER_CONCURRENCY: '8' },
  })
  // The api-only process is addressed by name only; the others run everything.
  processes = processes.filter((server) => server.name !== 'd')
  redis = cluster.redis
  repositories = cluster.repositories!
}, 180_000)

afterAll(() => cluster.close(), 60_000)

async function post(url: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

async function startRuns(count: number, plan: unknown, targets: ClusterProcess[]) {
  const ids: string[] = []
  for (let index = 0; index < count; index++) {
    const target = targets[index % targets.length]!
    const { status, json } = await post(`${target.url}/api/v1/runs`, { plan })
    expect(status).toBe(202)
    ids.push(json.id as string)
  }
  return ids
}

const checks = () => runChecks(repositories)
const waitUntilFinal = (ids: string[], what: string, timeoutMs?: number) =>
  checks().waitUntilFinal(ids, what, timeoutMs)
const assertRanOnce = (ids: string[], steps: number | string[]) =>
  checks().assertRanOnce(ids, steps)
const assertLedgerMatches = (ids: string[]) => checks().assertLedgerMatches(ids)

/** A run's ledger rows, oldest first. */
async function rowsOf(id: string) {
  return (await repositories.ledger.entries({ runId: id, limit: 200, offset: 0 })).entries
}

describe.runIf(canRun)('scale-out: three server processes on one PostgreSQL and one Redis', () => {
  it('completes 200 runs submitted round-robin, each exactly once, spread over all three workers and none on the api-only process', async () => {
    const ids = await startRuns(200, planOf(20), [...processes, byName('d')])
    const runs = await waitUntilFinal(ids, 'the 200 runs to finish', 120_000)
    expect(runs.map((run) => run.status)).toEqual(ids.map(() => 'done'))
    const split: Record<string, number> = {}
    for (const run of runs) split[run.executedBy ?? '?'] = (split[run.executedBy ?? '?'] ?? 0) + 1
    console.log('[scale-out] 200 runs executed by', split)
    expect(Object.keys(split).sort()).toEqual(['a', 'b', 'c'])
    await assertRanOnce(ids, 2)
    await assertLedgerMatches(ids)
  }, 180_000)

  it('streams every event of a run executed by one process to an SSE client of another, in order, and resumes exactly after Last-Event-ID', async () => {
    const [id] = await startRuns(1, planOf(400, 4), [byName('a')])
    const run = await waitFor(
      async () => {
        const found = await repositories.runs.find(id!)
        return found?.executedBy ? found : undefined
      },
      { timeoutMs: 60_000, what: 'the run to be taken by a process' },
    )
    const reader = processes.find((server) => server.name !== run.executedBy)!
    const response = await fetch(`${reader.url}/api/v1/runs/${id}/events`)
    const received: { id: number; type: string }[] = []
    // The live step-delta events (a step's streamed text, never stored) come besides.
    const streamed = new Map<string, string>()
    for await (const event of readSse(response.body!)) {
      if (event.event === 'step-delta') {
        const delta = JSON.parse(event.data) as { path: string; text: string }
        streamed.set(delta.path, (streamed.get(delta.path) ?? '') + delta.text)
        continue
      }
      received.push({ id: Number(event.id), type: event.event ?? '' })
    }
    const stored = await repositories.runs.events(id!)
    expect(received).toEqual(stored.map((event) => ({ id: event.sequence, type: event.type })))
    // A reader from the start on another process: each step's text whole, each piece once,
    // whether it came in the text so far or live.
    const finished = stored
      .map((each) => each.event as { type: string; path?: string; value?: unknown })
      .filter((each) => each.type === 'step-finish' && typeof each.value === 'string')
    expect(finished.length).toBeGreaterThan(0)
    for (const step of finished) expect(streamed.get(step.path!)).toBe(step.value)
    expect(received.at(-1)?.type).toBe('run-finish')
    expect((await repositories.runs.find(id!))?.executedBy).toBe(run.executedBy)

    const third = processes.find(
      (server) => server.name !== run.executedBy && server.name !== reader.name,
    )!
    const after = received[2]!.id
    const resumed = await fetch(`${third.url}/api/v1/runs/${id}/events`, {
      headers: { 'last-event-id': String(after) },
    })
    const rest: number[] = []
    for await (const event of readSse(resumed.body!)) {
      if (event.event !== 'step-delta') rest.push(Number(event.id))
    }
    expect(rest).toEqual(stored.filter((event) => event.sequence > after).map((e) => e.sequence))
  }, 120_000)

  it('serves A2A against any process: a task streamed on one is found with GetTask on the others', async () => {
    const clientOf = (server: ClusterProcess) =>
      new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
        `${server.url}/a2a/analyst/.well-known/agent-card.json`,
        '',
      )
    for (const [index, server] of processes.entries()) {
      const client = await clientOf(server)
      let taskId = ''
      let last: TaskState | undefined
      const request = SendMessageRequest.fromJSON({
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      })
      for await (const event of client.sendMessageStream(request)) {
        if (event.payload?.$case === 'task') taskId = event.payload.value.id
        if (event.payload?.$case === 'statusUpdate') last = event.payload.value.status?.state
      }
      expect(last).toBe(TaskState.TASK_STATE_COMPLETED)
      const other = await clientOf(processes[(index + 1) % processes.length]!)
      const found = (await other.getTask(GetTaskRequest.fromJSON({ id: taskId }))) as Task
      expect(found.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    }
  }, 120_000)

  it('follows and cancels an A2A task on another process than the one executing it', async () => {
    const clientOf = (server: ClusterProcess) =>
      new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
        `${server.url}/a2a/analyst/.well-known/agent-card.json`,
        '',
      )
    const [executor, follower, canceller] = [processes[0]!, processes[1]!, processes[2]!]

    // Followed on another process, to its end: the live answer arrives there.
    const slow = await startTask(await clientOf(executor), '[[sleep:1500]] review the refunds')
    const followed = followTask(await clientOf(follower), slow.id)
    await followed.done
    expect(followed.states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(followed.texts.join('')).toMatch(/review the refunds/)

    // Cancelled from a third process: the follower sees it end long before the agent would have.
    const long = await startTask(await clientOf(executor), '[[sleep:30000]] a long review')
    const started = Date.now()
    const following = followTask(await clientOf(follower), long.id)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const cancelled = await (await clientOf(canceller)).cancelTask(
      CancelTaskRequest.fromJSON({ id: long.id }),
    )
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED)
    await following.done
    const seen = following
    expect(seen.states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED)
    expect(Date.now() - started).toBeLessThan(25_000)
    const stored = (await (
      await clientOf(executor)
    ).getTask(GetTaskRequest.fromJSON({ id: long.id }))) as Task
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_CANCELED)
  }, 120_000)

  it('stops a delegation loop whose hops cross processes at maxHops, escalates it once, and an allow from another process releases it', async () => {
    const correlationId = `corr-scale-${Date.now()}`
    const order = [byName('b'), byName('c'), byName('a')]
    let held: { envelope: Record<string, unknown>; at: ClusterProcess } | undefined
    for (let hop = 0; hop < 20 && !held; hop++) {
      const target = order[hop % order.length]!
      // loop-a opens the conversation with a registered agent (a broadcast: nobody runs), then
      // loop-b and loop-a, outside parties of it, pass it back and forth.
      const [from, to] =
        hop === 0 ? ['loop-a', 'analyst'] : hop % 2 ? ['loop-b', 'loop-a'] : ['loop-a', 'loop-b']
      const envelope = {
        id: `env-${correlationId}-${hop}`,
        from: { agentId: from },
        to: { agentId: to },
        content: `pass ${hop}`,
        type: hop === 0 ? 'broadcast' : 'direct',
        correlationId,
        hop,
        createdAt: new Date().toISOString(),
      }
      const { status, json } = await post(`${target.url}/api/v1/messages`, envelope)
      if (status === 202) continue
      expect(status).toBe(409)
      expect((json.error as { code: string }).code).toBe('LOOP_GUARD_ESCALATED')
      held = { envelope, at: target }
    }
    expect(held).toBeDefined()
    // Each process counted the hops the others admitted: the ninth hop (maxHops 8) is held.
    expect(held!.envelope.hop).toBe(9)
    // Any further hop, on any process, waits on the same escalation; none is raised again.
    const again = await post(`${byName('a').url}/api/v1/messages`, {
      from: { agentId: 'loop-a' },
      to: { agentId: 'loop-b' },
      content: 'one more',
      correlationId,
      hop: 9,
    })
    expect(again.status).toBe(409)
    const open = await waitFor(
      async () => {
        const response = await fetch(`${byName('b').url}/api/v1/escalations`)
        const { escalations } = (await response.json()) as {
          escalations: { id: string; correlationId: string; status: string }[]
        }
        const mine = escalations.filter((item) => item.correlationId === correlationId)
        return mine.length > 0 ? mine : undefined
      },
      { timeoutMs: 30_000, what: 'the escalation to be stored' },
    )
    expect(open).toHaveLength(1)
    const allower = order.find((server) => server !== held!.at)!
    const allowed = await post(`${allower.url}/api/v1/escalations/${open[0]!.id}/allow`, {
      extraHops: 1,
    })
    expect(allowed.status).toBe(200)
    // The held message is delivered to its recipient, whose process stores it.
    await waitFor(
      async () => {
        const response = await fetch(`${held!.at.url}/api/v1/conversations/${correlationId}`)
        const { messages } = (await response.json()) as { messages: { id: string }[] }
        return messages.some((message) => message.id === held!.envelope.id) ? true : undefined
      },
      { timeoutMs: 30_000, what: 'the held message to be delivered' },
    )
    const all = await repositories.messages.escalations()
    expect(all.filter((item) => item.correlationId === correlationId)).toHaveLength(1)
  }, 120_000)

  it('cancels a run on another process than the one executing it: it stays cancelled, and its executor stops at its next step', async () => {
    const [id] = await startRuns(1, planOf(600, 4), [byName('a')])
    const run = await waitFor(
      async () => {
        const found = await repositories.runs.find(id!)
        if (!found?.executedBy) return undefined
        return (await repositories.runs.steps(id!)).length >= 1 ? found : undefined
      },
      { timeoutMs: 60_000, what: 'the run to finish its first step' },
    )
    const other = processes.find((server) => server.name !== run.executedBy)!
    const cancelled = await post(`${other.url}/api/v1/runs/${id}/cancel`, {})
    expect(cancelled.json.status).toBe('cancelled')
    // Longer than the rest of the run would take: its executor must not have finished it.
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    const after = await repositories.runs.find(id!)
    expect(after?.status).toBe('cancelled')
    expect((await repositories.runs.steps(id!)).length).toBeLessThan(4)
    // What its executor spent until it learned of the cancel is in the run's usage too.
    await waitFor(
      async () => {
        const books = await repositories.ledger.booksOfRun(id!)
        const recorded = await repositories.runs.find(id!)
        return recorded?.usage.calls === books.usage.calls ? true : undefined
      },
      { timeoutMs: 30_000, what: 'the cancelled run to count its executor’s spend' },
    )
    await assertLedgerMatches([id!])
  }, 120_000)

  it('finishes every run in flight when Redis restarts mid-load, none lost or run twice', async () => {
    const ids = await startRuns(30, planOf(300, 3), processes)
    await waitFor(
      async () => {
        const runs = await Promise.all(ids.map((id) => repositories.runs.find(id)))
        return runs.filter((run) => run?.status === 'running').length >= 3 ? true : undefined
      },
      { timeoutMs: 60_000, what: 'runs to be in flight' },
    )
    await redis!.restart({ downMs: 500 })
    const runs = await waitUntilFinal(ids, 'the runs after the Redis restart', 120_000)
    expect(runs.map((run) => run.status)).toEqual(ids.map(() => 'done'))
    await assertRanOnce(ids, 3)
    await assertLedgerMatches(ids)
  }, 180_000)

  it('takes over the runs of a process killed with SIGKILL: all complete, no finished step lost or run again, a step killed after it spent is on the books twice, the ledger matches', async () => {
    const cutShortIds = await startRuns(6, cutShortPlan, processes)
    const ids = await startRuns(30, planOf(500, 3), processes)
    // The victim is a process in the middle of a cut-short run's second step, after it spent.
    const midStep = await waitFor(
      async () => {
        for (const id of cutShortIds) {
          const run = await repositories.runs.find(id)
          if (run?.status !== 'running' || !run.executedBy) continue
          const steps = await repositories.runs.steps(id)
          const rows = await rowsOf(id)
          if (steps.length === 1 && rows.some((row) => row.stepPath === 'steps[1].then[0]')) {
            return { id, victim: byName(run.executedBy) }
          }
        }
        return undefined
      },
      { timeoutMs: 60_000, intervalMs: 50, what: 'a run to have spent in the middle of a step' },
    )
    const { victim } = midStep
    victim.child.kill('SIGKILL')
    const killedAt = Date.now()
    await victim.exited
    processes = processes.filter((server) => server !== victim)
    // Read after the kill, before the lease runs out: exactly the runs the victim held.
    const held = await Promise.all([...ids, ...cutShortIds].map((id) => repositories.runs.find(id)))
    const before = await Promise.all(
      held
        .filter((run) => run?.status === 'running' && run.executedBy === victim.name)
        .map(async (run) => ({ id: run!.id, steps: await repositories.runs.steps(run!.id) })),
    )
    console.log(`[scale-out] SIGKILL of ${victim.name} with ${before.length} runs in flight`)

    const runs = await waitUntilFinal([...ids, ...cutShortIds], 'the runs after the kill', 120_000)
    expect(runs.map((run) => run.status)).toEqual(runs.map(() => 'done'))
    await assertRanOnce(ids, 3)
    await assertRanOnce(cutShortIds, cutShortFinishes)
    await assertLedgerMatches([...ids, ...cutShortIds])

    // The step killed after it spent: both attempts on the books, same step and wallet, and
    // the run's usage counts both (4 calls where a run not interrupted makes 3).
    const cut = await rowsOf(midStep.id)
    const firstCall = cut.filter((row) => row.stepPath === 'steps[1].then[0]')
    expect(firstCall.map((row) => [row.attempt, row.wallet])).toEqual([
      [1, reviewer],
      [2, reviewer],
    ])
    expect(runs.find((run) => run.id === midStep.id)?.usage.calls).toBe(4)
    const wholeRuns = runs.filter((run) => cutShortIds.includes(run.id) && run.attempt === 1)
    for (const run of wholeRuns) expect(run.usage.calls).toBe(3)

    const takeovers: number[] = []
    for (const { id, steps } of before) {
      const run = runs.find((item) => item.id === id)!
      expect(run.executedBy).not.toBe(victim.name)
      expect(run.attempt).toBe(2)
      // A step finished before the kill is the same row afterwards: it did not run again …
      const after = await repositories.runs.steps(id)
      for (const step of steps) {
        expect(after.find((item) => item.path === step.path)?.finishedAt).toBe(step.finishedAt)
      }
      // … and it was never charged again: its rows are all of the first attempt.
      const rows = await rowsOf(id)
      for (const step of steps) {
        const its = rows.filter(
          (row) => row.stepPath === step.path || row.stepPath?.startsWith(`${step.path}.`),
        )
        expect(its.length).toBeGreaterThan(0)
        expect(its.every((row) => row.attempt === 1)).toBe(true)
      }
      // The run's start on the process that took it over, after the events kept from the victim.
      const restart = (await repositories.runs.events(id))
        .map((stored) => stored.event)
        .filter((event) => event.type === 'run-start')
        .at(-1)
      expect(restart?.takenOver).toEqual({ from: victim.name, by: run.executedBy })
      takeovers.push(Date.parse(String(restart?.at)) - killedAt)
    }
    console.log(
      `[scale-out] SIGKILL to takeover: ${Math.min(...takeovers)}–${Math.max(...takeovers)} ms (lease 3000 ms)`,
    )
  }, 180_000)
})
