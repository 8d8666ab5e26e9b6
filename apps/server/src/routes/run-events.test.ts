import { waitFor } from '@baton/testing/processes'
import { readSse, type SseEvent } from '@baton/testing/sse'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenTestApp } from '../__fixtures__/listen-test-app'

let app: FastifyInstance
let base: string
beforeAll(async () => {
  ;({ app, base } = await listenTestApp({ seed: false }))
})
afterAll(async () => {
  await app.close()
})

const slowPlan = {
  name: 'slow',
  steps: [
    { op: 'tool', toolName: 'wait', args: { ms: 150, value: 1 }, saveAs: 'one' },
    { op: 'tool', toolName: 'wait', args: { ms: 150, value: 2 }, saveAs: 'two' },
    { op: 'tool', toolName: 'wait', args: { ms: 150, value: 3 }, saveAs: 'three' },
    { op: 'tool', toolName: 'wait', args: { ms: 150, value: 4 }, saveAs: 'four' },
    { op: 'stop', output: 'done' },
  ],
}

async function startRun(): Promise<string> {
  const response = await fetch(`${base}/api/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plan: slowPlan }),
  })
  expect(response.status).toBe(202)
  return ((await response.json()) as { id: string }).id
}

async function collect(url: string, headers: Record<string, string>, stopAfter?: number) {
  const controller = new AbortController()
  const response = await fetch(url, { headers, signal: controller.signal })
  expect(response.headers.get('content-type')).toMatch(/text\/event-stream/)
  const events: SseEvent[] = []
  try {
    for await (const event of readSse(response.body!)) {
      events.push(event)
      if (stopAfter !== undefined && events.length >= stopAfter) {
        controller.abort()
        break
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error
  }
  return events
}

describe('GET /api/v1/runs/:id/events', () => {
  it('gives a client that disconnects and reconnects with Last-Event-ID every event exactly once', async () => {
    const id = await startRun()
    const url = `${base}/api/v1/runs/${id}/events`
    const first = await collect(url, {}, 3)
    expect(first).toHaveLength(3)
    const rest = await collect(url, { 'last-event-id': first.at(-1)!.id! })
    const all = [...first, ...rest]
    const sequences = all.map((event) => Number(event.id))
    expect(sequences).toEqual(sequences.map((_, index) => index))
    expect(all.at(-1)?.event).toBe('run-finish')
    const stored = await app.baton.repositories.runs.events(id)
    expect(all.map((event) => JSON.parse(event.data))).toEqual(stored.map((row) => row.event))
  })

  it('refuses a Last-Event-ID that is no event id of its stream, naming it, instead of replaying the whole run', async () => {
    const id = await startRun()
    const url = `${base}/api/v1/runs/${id}/events`
    for (const [headers, path, got] of [
      [{ 'last-event-id': 'evt-7' }, 'Last-Event-ID', '"evt-7"'],
      [{ 'last-event-id': '-1' }, 'Last-Event-ID', '"-1"'],
    ] as const) {
      const response = await fetch(url, { headers })
      expect(response.status).toBe(400)
      const { error } = (await response.json()) as {
        error: { code: string; details: { issues: { path: string; message: string }[] } }
      }
      expect(error.code).toBe('VALIDATION_FAILED')
      expect(error.details.issues).toEqual([
        { path, message: expect.stringContaining(`got ${got}`) },
      ])
    }
    const query = await fetch(`${url}?lastEventId=1.5`)
    expect(query.status).toBe(400)
    expect(JSON.stringify(await query.json())).toContain('expected a whole number, got \\"1.5\\"')
    // An empty header is none (an EventSource sends none before its first event): the whole run.
    const events = await collect(url, { 'last-event-id': '' }, 1)
    expect(events[0]?.event).toBe('run-start')
  })

  it('gives a late client the whole run from the stored events', async () => {
    const id = await startRun()
    await waitFor(async () =>
      (await app.baton.repositories.runs.find(id))?.status === 'done' ? true : undefined,
    )
    const events = await collect(`${base}/api/v1/runs/${id}/events`, {})
    expect(events[0]?.event).toBe('run-start')
    expect(events.at(-1)?.event).toBe('run-finish')
    expect(events.filter((event) => event.event === 'step-finish')).toHaveLength(5)
  })

  it('answers 404 for an unknown run', async () => {
    const response = await fetch(`${base}/api/v1/runs/missing/events`)
    expect(response.status).toBe(404)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND')
  })
})
