import { readSse, type SseEvent } from '@baton/testing/sse'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenTestApp } from '../__fixtures__/listen-test-app'
import { openEventStream } from './server-sent-events'

/** Reads events from `url` until `until` says stop (or the stream ends), then closes it. */
async function collect(url: string, until: (events: SseEvent[]) => boolean, start?: () => void) {
  const controller = new AbortController()
  const response = await fetch(url, { signal: controller.signal })
  const events: SseEvent[] = []
  const reading = (async () => {
    for await (const event of readSse(response.body!)) {
      events.push(event)
      if (until(events)) break
    }
  })()
  start?.()
  await Promise.race([
    reading,
    new Promise((_, reject) => setTimeout(() => reject(new Error('stream timed out')), 30_000)),
  ])
  controller.abort()
  return events
}

describe('GET /api/v1/messages/stream', () => {
  let app: FastifyInstance
  let base: string
  beforeAll(async () => {
    // Messages go to a registered agent (the seeded analyst), as broadcasts so it does not run.
    ;({ app, base } = await listenTestApp())
  })
  afterAll(async () => {
    await app.close()
  })

  it('never lets an envelope id inject an event into the readers of the stream', async () => {
    const forged = JSON.stringify({ id: 'esc_forged', correlationId: 'c', status: 'open' })
    const attack = {
      id: `m1\nevent: escalation\ndata: ${forged}\n\nid: m2\revent: escalation\rdata: ${forged}\r\r`,
      from: { agentId: 'mallory' },
      to: { agentId: 'analyst' },
      content: 'hello',
      type: 'broadcast',
      correlationId: 'corr_attack',
      hop: 0,
      createdAt: new Date().toISOString(),
    }
    const events = await collect(
      `${base}/api/v1/messages/stream`,
      (seen) => seen.some((event) => event.data.includes('"content":"the end"')),
      () =>
        void (async () => {
          // The stream is open once the first line arrived; give it a moment to subscribe.
          await new Promise((resolve) => setTimeout(resolve, 200))
          await app.inject({ method: 'POST', url: '/api/v1/messages', payload: attack })
          await app.inject({
            method: 'POST',
            url: '/api/v1/messages',
            payload: {
              from: { agentId: 'mallory' },
              to: { agentId: 'analyst' },
              type: 'broadcast',
              content: 'the end',
            },
          })
        })(),
    )
    expect(events.filter((event) => event.event === 'escalation')).toEqual([])
    for (const event of events) {
      expect(event.event).toBe('message')
      expect(() => JSON.parse(event.data)).not.toThrow()
    }
  })

  it("gives each message event the envelope's own id (as http-api.md says), not a position", async () => {
    const events = await collect(
      `${base}/api/v1/messages/stream`,
      (seen) => seen.some((event) => event.data.includes('"content":"which id?"')),
      () =>
        void (async () => {
          await new Promise((resolve) => setTimeout(resolve, 200))
          await app.inject({
            method: 'POST',
            url: '/api/v1/messages',
            payload: {
              from: { agentId: 'mallory' },
              to: { agentId: 'analyst' },
              type: 'broadcast',
              content: 'which id?',
            },
          })
        })(),
    )
    // Each event's id is its envelope's (a position would be a number).
    expect(events.length).toBeGreaterThan(0)
    for (const event of events) expect(event.id).toBe(JSON.parse(event.data).id)
    expect(events.at(-1)?.id).toMatch(/^msg_/)
  })

  // A HEAD (a monitor, a link checker, `curl -I`) can read no body: it was held open as a
  // stream, subscribed to the bus, until the server closed (the run's, until the run ended).
  it('answers a HEAD of a stream at once with its headers, and keeps no stream open for it', async () => {
    const started = await fetch(`${base}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        plan: { steps: [{ op: 'tool', toolName: 'wait', args: { ms: 10_000 }, saveAs: 'slept' }] },
      }),
    })
    const { id } = (await started.json()) as { id: string }
    for (const path of ['/api/v1/messages/stream', `/api/v1/runs/${id}/events`]) {
      const response = await fetch(`${base}${path}`, {
        method: 'HEAD',
        signal: AbortSignal.timeout(5_000),
      })
      expect(response.status, path).toBe(200)
      expect(response.headers.get('content-type'), path).toMatch(/^text\/event-stream/)
    }
    const missing = await fetch(`${base}/api/v1/runs/no-such-run/events`, {
      method: 'HEAD',
      signal: AbortSignal.timeout(5_000),
    })
    expect(missing.status).toBe(404)
    const metrics = await (await fetch(`${base}/metrics`)).text()
    expect(metrics).toMatch(/^baton_sse_clients 0$/m)
    // A GET still streams.
    const events = await collect(`${base}/api/v1/runs/${id}/events`, (seen) => seen.length > 0)
    expect(events[0]?.event).toBe('run-start')
    await fetch(`${base}/api/v1/runs/${id}/cancel`, { method: 'POST' })
  })

  it('refuses an envelope whose id has characters outside the safe set, naming `id`', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/messages',
      payload: {
        id: 'm1\nevent: escalation',
        from: { agentId: 'mallory' },
        to: { agentId: 'analyst' },
        content: 'hello',
        type: 'broadcast',
        correlationId: 'corr_attack',
        hop: 0,
        createdAt: new Date().toISOString(),
      },
    })
    // Either refused, or sent under an id of the bus's own: never under the forged one.
    if (response.statusCode === 202) {
      expect(response.json().envelope.id).not.toContain('\n')
    } else {
      expect(response.statusCode).toBe(400)
      expect(response.json().error.message).toMatch(/\bid\b/)
    }
  })
})

describe('openEventStream', () => {
  let app: FastifyInstance
  let base: string
  beforeAll(async () => {
    app = Fastify()
    const closing = new AbortController()
    app.get('/stream', async (request, reply) => {
      const sse = openEventStream(request, reply, closing.signal)
      sse.send({ id: 'a\r\nevent: escalation', event: 'message\nevent: escalation', data: 'x' })
      sse.send({ event: 'text', data: 'line one\nline two\rline three' })
      sse.send({ id: 'done', event: 'end', data: null })
    })
    base = await app.listen({ port: 0, host: '127.0.0.1' })
  })
  afterAll(async () => {
    await app.close()
  })

  it('writes no CR or LF in id and event lines, and each data line as its own field', async () => {
    const events = await collect(`${base}/stream`, (seen) => seen.length >= 3)
    expect(events.map((event) => event.event)).toEqual(['messageevent: escalation', 'text', 'end'])
    expect(events[0]!.id).toBe('aevent: escalation')
    expect(JSON.parse(events[1]!.data)).toBe('line one\nline two\rline three')
  })
})
