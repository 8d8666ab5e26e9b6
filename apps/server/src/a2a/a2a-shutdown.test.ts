import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Fastify from 'fastify'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../__fixtures__/server-process'
import { buildApp } from '../app'
import { openDatabase } from '../db/open-database'
import { seedDemo } from '../seed/seed-demo'
import { testSettings } from '../settings'
import { createTestServices } from './__fixtures__/a2a-test-services'
import { createA2APlugin } from './a2a-plugin'

const folders: string[] = []
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true })
})

const sendMessage = (id: string, text: string, configuration?: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'SendMessage',
    params: {
      message: { messageId: id, role: 'ROLE_USER', parts: [{ text }] },
      ...(configuration ? { configuration } : {}),
    },
  })

describe('stopping the server while A2A tasks execute', () => {
  it('lets them end and stores how they ended, and what they spent, before the database closes', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-a2a-stop-'))
    folders.push(dataDir)
    const app = await buildApp({ settings: testSettings({ dataDir }), logger: false })
    await seedDemo(app.baton)
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    const post = (body: string, signal?: AbortSignal) =>
      fetch(`${base}/a2a/analyst`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body,
        ...(signal ? { signal } : {}),
      })

    // One answered at once (the client holds the task's id while the agent works) ...
    const atOnce = await post(
      sendMessage('at-once', '[[sleep:600]] one', { returnImmediately: true }),
    )
    const told = (await atOnce.json()) as { result: { task: { id: string } } }
    // ... and one whose client gave up waiting: neither holds a request open.
    const gaveUp = new AbortController()
    const waiting = post(sendMessage('gave-up', '[[sleep:600]] two'), gaveUp.signal).catch(
      (error: Error) => error.name,
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    gaveUp.abort()
    expect(await waiting).toBe('AbortError')

    await app.close()

    const { db } = await openDatabase({ dataDir })
    try {
      const tasks = await sql<{ id: string; status_state: string }>`
        select id, status_state from a2a_tasks order by id`.execute(db)
      expect(tasks.rows).toHaveLength(2)
      expect(tasks.rows.map((row) => row.status_state)).toEqual([
        'TASK_STATE_COMPLETED',
        'TASK_STATE_COMPLETED',
      ])
      expect(tasks.rows.map((row) => row.id)).toContain(told.result.task.id)
      const spent = await sql<{ calls: number }>`
        select calls from ledger where wallet = ${'0x1111111111111111111111111111111111111111'}`.execute(
        db,
      )
      expect(spent.rows).toHaveLength(2)
    } finally {
      await db.destroy()
    }
  })
})

describe('stopping the server while an A2A task outlasts the stop bound', () => {
  it('fails the task, saying the server stopped, and stores that before the database closes', async () => {
    const services = await createTestServices()
    const app = Fastify()
    await app.register(createA2APlugin({ ...services, stopWithinMs: 100 }))
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    const answer = await fetch(`${base}/a2a/analyst`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      // The stand-in host waits until its signal aborts.
      body: sendMessage('stuck', 'wait for ever', { returnImmediately: true }),
    })
    const { result } = (await answer.json()) as { result: { task: { id: string } } }
    const started = performance.now()
    await app.close()
    expect(performance.now() - started).toBeLessThan(5_000)
    try {
      const stored = await sql<{ status_state: string; status: { message?: unknown } }>`
        select status_state, status from a2a_tasks where id = ${result.task.id}`.execute(
        services.db,
      )
      expect(stored.rows[0]?.status_state).toBe('TASK_STATE_FAILED')
      expect(JSON.stringify(stored.rows[0]?.status)).toContain('The server stopped')
    } finally {
      await services.close()
    }
  })
})

describe('a server killed while an A2A task executes, started again', () => {
  let server: ServerProcess | undefined
  afterAll(async () => {
    await server?.stop()
  })

  it('fails the task its last run left in progress, saying why, and leaves the tasks that ended as they were', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-a2a-killed-'))
    folders.push(dataDir)
    server = await startServerProcess({ PORT: '0', BATON_DATA_DIR: dataDir })
    const rpc = async (body: string) => {
      const response = await fetch(`${server!.url}/a2a/analyst`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body,
      })
      return (await response.json()) as {
        result: { task: { id: string; status: { state: string } } } & {
          id: string
          status: { state: string; message?: { parts: { text?: string }[] } }
        }
      }
    }
    const getTask = (id: string) =>
      rpc(JSON.stringify({ jsonrpc: '2.0', id: 'get', method: 'GetTask', params: { id } }))

    const done = await rpc(sendMessage('done', 'answered before the kill'))
    expect(done.result.task.status.state).toBe('TASK_STATE_COMPLETED')
    const cut = await rpc(
      sendMessage('cut', '[[sleep:60000]] never answered', { returnImmediately: true }),
    )
    const cutId = cut.result.task.id
    // Acknowledged, so stored: in progress, and the process that executes it is killed.
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(
      (await getTask(cutId)).result.status.state,
    )
    await server.stop({ signal: 'SIGKILL' })

    server = await startServerProcess({ PORT: '0', BATON_DATA_DIR: dataDir })
    const after = (await getTask(cutId)).result
    expect(after.status.state).toBe('TASK_STATE_FAILED')
    expect(after.status.message?.parts[0]?.text).toBe(
      'The server executing this task stopped before the agent answered.',
    )
    expect((await getTask(done.result.task.id)).result.status.state).toBe('TASK_STATE_COMPLETED')
    // The agent answers the next message as before.
    const next = await rpc(sendMessage('next', 'after the restart'))
    expect(next.result.task.status.state).toBe('TASK_STATE_COMPLETED')
  }, 120_000)
})
