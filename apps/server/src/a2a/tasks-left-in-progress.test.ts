import { type Task, TaskState } from '@a2a-js/sdk'
import { hasRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import { Redis } from 'ioredis'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { a2aTaskSaves } from '../db/a2a-task-rows'
import { createGroupCommit } from '../db/group-commit'
import { createTestServices, type TestServices } from './__fixtures__/a2a-test-services'
import { createRedisTaskBuses, type RedisTaskBuses } from './create-redis-task-buses'
import {
  EXECUTOR_GONE_REASON,
  failTasksOfLastRun,
  watchTasksOfGoneProcesses,
} from './tasks-left-in-progress'

const scope = { tenant: '', owner: 'baton' }

const taskOf = (id: string, state: TaskState, at: number): Task =>
  ({
    id,
    contextId: `context-${id}`,
    status: { state, message: undefined, timestamp: new Date(at).toISOString() },
    artifacts: [],
    history: [],
    metadata: undefined,
  }) as Task

let services: TestServices
beforeAll(async () => {
  services = await createTestServices()
})
afterAll(async () => {
  await services?.close()
})

async function store(...tasks: Task[]) {
  const writer = createGroupCommit(services.db)
  for (const task of tasks) await writer.write(a2aTaskSaves, { scope, task, taken: false })
}

async function stateOf(id: string) {
  const { rows } = await sql<{ status_state: string; status: string }>`
    select status_state, status from a2a_tasks where id = ${id}`.execute(services.db)
  const status = JSON.parse(rows[0]!.status) as { message?: { parts: { text?: string }[] } }
  return { state: rows[0]!.status_state, text: status.message?.parts[0]?.text }
}

describe('tasks left in progress by the last run of a server alone (failTasksOfLastRun)', () => {
  it('fails the submitted and working ones, with the reason, and leaves the others as they were', async () => {
    const at = Date.now() - 1_000
    await store(
      taskOf('alone-submitted', TaskState.TASK_STATE_SUBMITTED, at),
      taskOf('alone-working', TaskState.TASK_STATE_WORKING, at),
      taskOf('alone-done', TaskState.TASK_STATE_COMPLETED, at),
      taskOf('alone-input', TaskState.TASK_STATE_INPUT_REQUIRED, at),
    )
    expect((await failTasksOfLastRun(services.db)).sort()).toEqual([
      'alone-submitted',
      'alone-working',
    ])
    expect(await stateOf('alone-submitted')).toEqual({
      state: 'TASK_STATE_FAILED',
      text: EXECUTOR_GONE_REASON,
    })
    expect((await stateOf('alone-working')).state).toBe('TASK_STATE_FAILED')
    expect((await stateOf('alone-done')).state).toBe('TASK_STATE_COMPLETED')
    // Waiting on its client is not executing: nothing was cut off.
    expect((await stateOf('alone-input')).state).toBe('TASK_STATE_INPUT_REQUIRED')
    expect(await failTasksOfLastRun(services.db)).toEqual([])
  })
})

const canRun = hasRedis || process.env.CI === 'true'
if (!canRun) console.warn('[A2A tasks of gone processes] redis-server not found: skipping them.')

describe.runIf(canRun)(
  'tasks of a process that is gone, among many (watchTasksOfGoneProcesses)',
  () => {
    let redis: RedisServer
    let clients: Redis[] = []
    let buses: RedisTaskBuses
    const leaseMs = 1_000
    beforeAll(async () => {
      redis = await startRedisServer()
      clients = [new Redis(redis.url), new Redis(redis.url)]
      buses = createRedisTaskBuses({
        publisher: clients[0]!,
        subscriber: clients[1]!,
        loadTask: async () => undefined,
        leaseMs,
      })
    })
    afterAll(async () => {
      await buses?.close()
      for (const client of clients) client.disconnect()
      await redis?.stop()
    })

    it('fails, at its second look, a task no live process marks; never one a process still executes, nor one that ended meanwhile', async () => {
      // Not updated for longer than the watcher's lease.
      const old = Date.now() - 120_000
      await store(
        taskOf('gone', TaskState.TASK_STATE_WORKING, old),
        taskOf('live', TaskState.TASK_STATE_WORKING, old),
        taskOf('ends', TaskState.TASK_STATE_WORKING, old),
        // Updated within the lease: its process may not have marked it yet.
        taskOf('fresh', TaskState.TASK_STATE_SUBMITTED, Date.now()),
      )
      // A process executes `live` (its bus keeps the mark); no one executes the others.
      buses.createOrGetByTaskId('live')
      const failedEach: string[][] = []
      const watching = watchTasksOfGoneProcesses({
        db: services.db,
        // Longer than the test: only the looks it asks for.
        leaseMs: 60_000,
        executedSomewhere: (ids) => buses.executedSomewhere(ids),
        onFailed: (ids) => failedEach.push(ids),
      })
      try {
        await new Promise((resolve) => setTimeout(resolve, 100))
        expect(await buses.executedSomewhere(['gone', 'live', 'ends'])).toEqual(new Set(['live']))
        // First look: suspects only (a task ending as it is looked at is not taken for dead).
        expect(await watching.look()).toEqual([])
        // `ends` ends on its own process before the second look: its end is what is stored.
        await store(taskOf('ends', TaskState.TASK_STATE_COMPLETED, Date.now()))
        expect(await watching.look()).toEqual(['gone'])
        expect(failedEach).toEqual([['gone']])
        expect(await stateOf('gone')).toEqual({
          state: 'TASK_STATE_FAILED',
          text: EXECUTOR_GONE_REASON,
        })
        expect((await stateOf('live')).state).toBe('TASK_STATE_WORKING')
        expect((await stateOf('ends')).state).toBe('TASK_STATE_COMPLETED')
        expect((await stateOf('fresh')).state).toBe('TASK_STATE_SUBMITTED')

        // Its executor ends the task and releases it; a process killed leaves its marks to lapse.
        buses.cleanupByTaskId('live')
        await new Promise((resolve) => setTimeout(resolve, 100))
        expect(await watching.look()).toEqual([])
        expect(await watching.look()).toEqual(['live'])
      } finally {
        await watching.stop()
      }
    })
  },
)
