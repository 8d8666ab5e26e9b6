import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { waitFor } from '@baton/testing/processes'
import { afterAll, describe, expect, it } from 'vitest'
import { openRawConnection, rawRequest } from './__fixtures__/raw-http'
import { type ServerProcess, startServerProcess } from './__fixtures__/server-process'
import { openDatabase } from './db/open-database'
import { createRunsRepository } from './db/runs-repository'

const analyst = '0x1111111111111111111111111111111111111111'

/** One step that asks a demo agent and takes `ms` (longer than the drain, 10 s, when asked). */
const slowPlan = (ms: number) => ({
  name: `slow-${ms}`,
  steps: [
    { op: 'delegate', saveAs: 'a', agentWallet: analyst, prompt: `[[sleep:${ms}]] one` },
    { op: 'tool', toolName: 'wait', args: { ms: 10 }, saveAs: 'b' },
  ],
})

// The documented bound (10 s of drain) and a generous margin for a loaded machine: the process
// that started the queued runs during its drain took 25 s and more.
const boundMs = 10_000
const marginMs = 8_000

const servers: ServerProcess[] = []
const folders: string[] = []

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop({ signal: 'SIGKILL' })))
  for (const folder of folders) await rm(folder, { recursive: true, force: true })
})

async function startServer(dataDir: string): Promise<ServerProcess> {
  const server = await startServerProcess({
    BATON_DATA_DIR: dataDir,
    BATON_RATE_LIMIT: '1000000',
    // Six runs at once: the first test's twelve are two waves, and the setting is checked too.
    BATON_WORKER_CONCURRENCY: '6',
  })
  servers.push(server)
  return server
}

async function post(url: string, body: unknown = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, json: (await response.json()) as Record<string, unknown> }
}

async function statusOf(url: string, id: string): Promise<string> {
  return ((await (await fetch(`${url}/api/v1/runs/${id}`)).json()) as { status: string }).status
}

describe('shutdown on a single process (PGlite)', () => {
  it('starts none of the runs still queued at SIGTERM, exits within the bound, and the next start finishes them all', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-shutdown-'))
    folders.push(dataDir)
    let server = await startServer(dataDir)
    // Six run at once (BATON_WORKER_CONCURRENCY); the other six wait, queued.
    const ids: string[] = []
    for (let index = 0; index < 12; index++) {
      const { status, json } = await post(`${server.url}/api/v1/runs`, {
        plan: slowPlan(15_000),
      })
      expect(status).toBe(202)
      ids.push(json.id as string)
    }
    const inFlight = await waitFor(
      async () => {
        const statuses = await Promise.all(ids.map((id) => statusOf(server.url, id)))
        const running = ids.filter((_, index) => statuses[index] === 'running')
        return running.length === 6 ? running : undefined
      },
      { timeoutMs: 60_000, what: 'six runs to be running' },
    )
    const queued = ids.filter((id) => !inFlight.includes(id))

    const signalledAt = Date.now()
    server.child.kill('SIGTERM')
    expect(await server.exited, server.output()).toBe(0)
    const tookMs = Date.now() - signalledAt
    console.log(`[shutdown] exited ${tookMs} ms after SIGTERM with 6 runs in flight, 6 queued`)
    expect(tookMs).toBeLessThan(boundMs + marginMs)

    const { db } = await openDatabase({ dataDir })
    try {
      const runs = createRunsRepository(db)
      for (const id of inFlight) {
        // Cut short in their only long step: interrupted, resumable.
        expect((await runs.find(id))?.status).toBe('interrupted')
      }
      for (const id of queued) {
        // Never started: still queued, not a step, not an event, not an attempt.
        const run = await runs.find(id)
        expect(run).toMatchObject({ status: 'queued', attempt: 0 })
        expect(await runs.events(id)).toEqual([])
      }
    } finally {
      await db.destroy()
    }

    server = await startServer(dataDir)
    // The queued runs are queued again by the start itself; the interrupted ones are resumed.
    for (const id of inFlight) {
      expect((await post(`${server.url}/api/v1/runs/${id}/resume`)).status).toBe(202)
    }
    const final = await waitFor(
      async () => {
        const statuses = await Promise.all(ids.map((id) => statusOf(server.url, id)))
        return statuses.every((status) => !['queued', 'running'].includes(status))
          ? statuses
          : undefined
      },
      { timeoutMs: 180_000, intervalMs: 500, what: 'every run to finish after the restart' },
    )
    expect(final).toEqual(ids.map(() => 'done'))
    for (const id of ids) {
      const text = await (await fetch(`${server.url}/api/v1/runs/${id}/events`)).text()
      expect(text.match(/event: run-finish\n/g)).toHaveLength(1)
    }
    server.child.kill('SIGTERM')
    expect(await server.exited, server.output()).toBe(0)
  }, 300_000)

  it('answers a request that arrives during the drain with the documented 503 on the connection it came on, kept alive or pipelined', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-shutdown-'))
    folders.push(dataDir)
    const server = await startServer(dataDir)
    const { json } = await post(`${server.url}/api/v1/runs`, { plan: slowPlan(15_000) })
    await waitFor(
      async () =>
        (await statusOf(server.url, json.id as string)) === 'running' ? true : undefined,
      { timeoutMs: 60_000, what: 'the long run to be running' },
    )
    // Kept alive: one request answered before the signal, the next one after it.
    const kept = await openRawConnection(server.url)
    kept.write(rawRequest('GET', '/health'))
    expect((await kept.next()).status).toBe(200)

    server.child.kill('SIGTERM')
    // The drain has begun once a new connection is refused with 503 (the run holds it ~10 s).
    await waitFor(
      async () => {
        const probe = await openRawConnection(server.url).catch(() => undefined)
        if (!probe) return undefined
        probe.write(rawRequest('GET', '/health'))
        const response = await probe.next().catch(() => undefined)
        probe.destroy()
        return response?.status === 503 ? true : undefined
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'the drain to begin' },
    )

    kept.write(rawRequest('POST', '/api/v1/runs', { plan: slowPlan(10) }))
    const refused = await kept.next()
    expect(refused.status).toBe(503)
    expect(JSON.parse(refused.body)).toMatchObject({
      error: { code: 'SHUTTING_DOWN', message: 'The server is shutting down.' },
    })
    expect(refused.headers.connection).toBe('close')
    expect(await kept.closed).toBe('end')

    // Pipelined: the first request gets the documented answer; the connection then closes, so
    // the second is never answered (a client sends it again elsewhere), never with another body.
    const pipelined = await openRawConnection(server.url)
    pipelined.write(
      rawRequest('POST', '/api/v1/runs', { plan: slowPlan(10) }) +
        rawRequest('GET', '/api/v1/runs'),
    )
    const first = await pipelined.next()
    expect(first.status).toBe(503)
    expect(JSON.parse(first.body)).toMatchObject({ error: { code: 'SHUTTING_DOWN' } })
    expect(await pipelined.closed).toBe('end')
    await expect(pipelined.next({ timeoutMs: 1_000 })).rejects.toThrow(/closed/)

    expect(await server.exited, server.output()).toBe(0)
    // The new run was never stored: only the long one exists, interrupted by the drain.
    const { db } = await openDatabase({ dataDir })
    try {
      const runs = await createRunsRepository(db).list({ limit: 10, offset: 0 })
      expect(runs.runs.map((run) => [run.id, run.status])).toEqual([[json.id, 'interrupted']])
    } finally {
      await db.destroy()
    }
  }, 180_000)
})
