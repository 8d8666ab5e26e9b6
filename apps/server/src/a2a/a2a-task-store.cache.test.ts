import { ListTasksRequest, type Task, TaskState } from '@a2a-js/sdk'
import { ServerCallContext } from '@a2a-js/sdk/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TaskAlreadyEndedError } from '../db/a2a-task-rows'
import { createTestServices, type TestServices } from './__fixtures__/a2a-test-services'
import { taskIn } from './__fixtures__/task-in'
import { createA2ATaskStore } from './a2a-task-store'
import { failTasks } from './tasks-left-in-progress'

const context = new ServerCallContext({
  user: { isAuthenticated: true, userName: 'baton' },
} as never)

describe('createA2ATaskStore (a task executing here is answered from memory)', () => {
  let services: TestServices
  beforeAll(async () => {
    services = await createTestServices()
  })
  afterAll(async () => {
    await services?.close()
  })

  it('stores a task’s first save and its settling save before they resolve, for any other process', async () => {
    const here = createA2ATaskStore(services.db)
    const elsewhere = createA2ATaskStore(services.db)
    const id = crypto.randomUUID()
    await here.save(taskIn(id, TaskState.TASK_STATE_SUBMITTED), context)
    expect((await elsewhere.load(id, context))?.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED)

    // Intermediate updates: at once here, written behind for the others.
    await here.save(taskIn(id, TaskState.TASK_STATE_WORKING), context)
    await here.save(taskIn(id, TaskState.TASK_STATE_WORKING, 'half'), context)
    expect((await here.load(id, context))?.artifacts).toHaveLength(1)

    await here.save(taskIn(id, TaskState.TASK_STATE_COMPLETED, 'done'), context)
    const stored = await elsewhere.load(id, context)
    expect(stored?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(JSON.stringify(stored?.artifacts)).toContain('done')
  })

  it('reads a settled task from the database again, so a change by another process is seen', async () => {
    const here = createA2ATaskStore(services.db)
    const elsewhere = createA2ATaskStore(services.db)
    const id = crypto.randomUUID()
    await here.save(taskIn(id, TaskState.TASK_STATE_SUBMITTED), context)
    await here.save(taskIn(id, TaskState.TASK_STATE_INPUT_REQUIRED), context)
    // Another process takes the next turn of the task and finishes it.
    await elsewhere.save(taskIn(id, TaskState.TASK_STATE_COMPLETED, 'answered there'), context)
    expect((await here.load(id, context))?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED)
  })

  it('lists what was written behind, and hands out copies', async () => {
    const here = createA2ATaskStore(services.db)
    const id = crypto.randomUUID()
    await here.save(taskIn(id, TaskState.TASK_STATE_SUBMITTED), context)
    await here.save(taskIn(id, TaskState.TASK_STATE_WORKING), context)
    const listed = await here.list(ListTasksRequest.fromJSON({ contextId: `ctx-${id}` }), context)
    expect(listed.tasks.map((task) => task.status?.state)).toEqual([TaskState.TASK_STATE_WORKING])

    const loaded = (await here.load(id, context))!
    loaded.status = undefined
    expect((await here.load(id, context))?.status?.state).toBe(TaskState.TASK_STATE_WORKING)
  })

  it('keeps what was saved as it was, whatever the SDK then changes on the objects it holds', async () => {
    // What the SDK's result manager and request handler do to a task they loaded or saved:
    // replace its fields, push to and replace entries of its artifacts, set an artifact's fields.
    const changeInPlace = (task: Task) => {
      task.status = { ...task.status!, state: TaskState.TASK_STATE_FAILED }
      task.history = [...task.history, { messageId: 'm', role: 1, parts: [] } as never]
      task.metadata = { changed: true }
      const [first] = task.artifacts
      first!.parts = [...first!.parts, first!.parts[0]!]
      first!.name = 'renamed'
      first!.metadata = { changed: true }
      task.artifacts.push({ ...first!, artifactId: 'b' })
      task.artifacts[0] = { ...first!, artifactId: 'replaced' }
    }
    const seen = (task: Task | undefined) => JSON.stringify(task)
    const here = createA2ATaskStore(services.db)
    const id = crypto.randomUUID()
    await here.save(taskIn(id, TaskState.TASK_STATE_SUBMITTED), context)
    const saved = taskIn(id, TaskState.TASK_STATE_WORKING, 'half')
    const expected = seen(saved)
    await here.save(saved, context)
    changeInPlace(saved)
    expect(seen(await here.load(id, context))).toBe(expected)

    changeInPlace((await here.load(id, context))!)
    const loaded = (await here.load(id, context))!
    expect(seen(loaded)).toBe(expected)
    expect(loaded.artifacts[0]?.parts).toHaveLength(1)
    expect(loaded.status?.state).toBe(TaskState.TASK_STATE_WORKING)
  })

  it('keeps tasks of different callers apart', async () => {
    const here = createA2ATaskStore(services.db)
    const other = new ServerCallContext({
      user: { isAuthenticated: true, userName: 'mallory' },
    } as never)
    const id = crypto.randomUUID()
    await here.save(taskIn(id, TaskState.TASK_STATE_SUBMITTED), context)
    await here.save(taskIn(id, TaskState.TASK_STATE_WORKING), context)
    expect(await here.load(id, other)).toBeUndefined()
  })

  it('goes on listing while a task it executes was ended by another process, then refuses its end and reads the stored one', async () => {
    const here = createA2ATaskStore(services.db)
    const id = crypto.randomUUID()
    await here.save(taskIn(id, TaskState.TASK_STATE_SUBMITTED), context)
    // The others fail it (this process was cut off past its lease).
    expect(
      await failTasks(
        services.db,
        [{ tenant: '', owner: 'baton', id, contextId: `ctx-${id}` }],
        'gone',
      ),
    ).toEqual([id])
    // This process comes back: its states in between are written behind, and refused.
    await here.save(taskIn(id, TaskState.TASK_STATE_WORKING, 'half'), context)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const listed = await here.list(ListTasksRequest.fromJSON({}), context)
    expect(listed.tasks.find((task) => task.id === id)?.status?.state).toBe(
      TaskState.TASK_STATE_FAILED,
    )
    await expect(
      here.save(taskIn(id, TaskState.TASK_STATE_COMPLETED, 'done'), context),
    ).rejects.toBeInstanceOf(TaskAlreadyEndedError)
    expect((await here.load(id, context))?.status?.state).toBe(TaskState.TASK_STATE_FAILED)
    expect(await here.settled(1_000)).toBe(true)
  })
})
