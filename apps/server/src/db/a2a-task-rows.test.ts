import { randomUUID } from 'node:crypto'
import { type Task, TaskState } from '@a2a-js/sdk'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends } from '../__fixtures__/backends'
import { openTestDatabase } from '../__fixtures__/test-database'
import { taskIn } from '../a2a/__fixtures__/task-in'
import { agentMessage } from '../a2a/agent-message'
import { a2aTaskSaves, TaskAlreadyEndedError } from './a2a-task-rows'
import { createGroupCommit } from './group-commit'
import type { OpenedDatabase } from './open-database'
import { runWrites } from './run-writes'

const scope = { tenant: '', owner: 'baton' }

describe.each(backends)('A2A task saves on %s (a2aTaskSaves)', (backend) => {
  let opened: OpenedDatabase
  beforeAll(async () => {
    opened = await openTestDatabase(backend)
  })
  afterAll(() => opened.db.destroy())

  const save = (task: Task, writer = createGroupCommit(opened.db)) =>
    writer.write(a2aTaskSaves, { scope, task, taken: false })
  const stored = async (id: string) => {
    const { rows } = await sql<{ status_state: string; artifacts: string | null }>`
      select status_state, artifacts from a2a_tasks where id = ${id}`.execute(opened.db)
    return { state: rows[0]?.status_state, artifacts: rows[0]?.artifacts ?? null }
  }

  it('keeps a task stored as ended in its state: a save to another state is refused, typed, and writes nothing', async () => {
    for (const ended of [
      TaskState.TASK_STATE_FAILED,
      TaskState.TASK_STATE_CANCELED,
      TaskState.TASK_STATE_COMPLETED,
      TaskState.TASK_STATE_REJECTED,
    ]) {
      const id = randomUUID()
      await save(taskIn(id, TaskState.TASK_STATE_WORKING))
      await save(taskIn(id, ended))
      const before = await stored(id)
      // The executor that was cut off comes back with its own end, and a late working state.
      for (const late of [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_WORKING]) {
        if (late === ended) continue
        const refused = await save(taskIn(id, late, 'the late answer')).catch((error) => error)
        expect(refused).toBeInstanceOf(TaskAlreadyEndedError)
        expect((refused as TaskAlreadyEndedError).code).toBe('TASK_ALREADY_ENDED')
        expect((refused as Error).message).toContain(id)
        expect(await stored(id)).toEqual(before)
      }
    }
  })

  it('stores a later save of an ended task in the same state (its last artifact), and a task that has not ended', async () => {
    const id = randomUUID()
    await save(taskIn(id, TaskState.TASK_STATE_WORKING))
    await save(taskIn(id, TaskState.TASK_STATE_INPUT_REQUIRED))
    await save(taskIn(id, TaskState.TASK_STATE_WORKING))
    await save(taskIn(id, TaskState.TASK_STATE_COMPLETED))
    await save(taskIn(id, TaskState.TASK_STATE_COMPLETED, 'the answer'))
    expect((await stored(id)).state).toBe('TASK_STATE_COMPLETED')
    expect((await stored(id)).artifacts).toContain('the answer')
  })

  it('keeps the status of a task stored as ended when a later save in the same state says another why', async () => {
    const id = randomUUID()
    const failed = (why: string, text = '') => {
      const task = taskIn(id, TaskState.TASK_STATE_FAILED, text)
      task.status!.message = agentMessage({ taskId: id, contextId: task.contextId }, why)
      return task
    }
    await save(taskIn(id, TaskState.TASK_STATE_WORKING))
    // Another process fails it (its executor was gone), then the executor's process saves its own.
    await save(failed('The server executing this task stopped before the agent answered.'))
    const { rows: before } = await sql<{ status: string; status_last_updated: string }>`
      select status, status_last_updated from a2a_tasks where id = ${id}`.execute(opened.db)
    await save(failed('Event processing loop failed: the end was refused', 'a late artifact'))
    const { rows: after } = await sql<{ status: string; status_last_updated: string }>`
      select status, status_last_updated from a2a_tasks where id = ${id}`.execute(opened.db)
    expect(after).toEqual(before)
    expect(after[0]!.status).toContain('The server executing this task stopped')
    // Its artifacts are still the later save's.
    expect((await stored(id)).artifacts).toContain('a late artifact')
  })

  it('refuses only the refused save of a turn shared with other answering writes (one statement)', async () => {
    const ended = randomUUID()
    await save(taskIn(ended, TaskState.TASK_STATE_CANCELED))
    const fresh = randomUUID()
    const writer = createGroupCommit(opened.db)
    const results = await Promise.allSettled([
      save(taskIn(ended, TaskState.TASK_STATE_COMPLETED), writer),
      // A run write answers too: the turn's statements are tagged and put together.
      writer.write(runWrites, { runId: randomUUID(), steps: [], events: [], ledger: [] }),
      save(taskIn(fresh, TaskState.TASK_STATE_WORKING), writer),
    ])
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled'])
    expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(TaskAlreadyEndedError)
    expect((await stored(ended)).state).toBe('TASK_STATE_CANCELED')
    expect((await stored(fresh)).state).toBe('TASK_STATE_WORKING')
  })
})
