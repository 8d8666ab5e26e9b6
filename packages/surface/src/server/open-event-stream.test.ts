import type { ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from '../__fixtures__/http-server'
import { type EventStreamStatus, openEventStream } from './open-event-stream'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const poll = () => {
      if (check()) return resolve()
      if (Date.now() - started > timeoutMs)
        return reject(new Error(`timed out waiting for ${what}`))
      setTimeout(poll, 10)
    }
    poll()
  })
}

describe('openEventStream', () => {
  it('retries a stream that drops, resuming after the last event id it saw', async () => {
    const lastEventIds: (string | undefined)[] = []
    let connection = 0
    server = await startServer((request, response: ServerResponse) => {
      connection += 1
      lastEventIds.push(request.headers['last-event-id'] as string | undefined)
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      if (connection === 1) {
        response.write('id: 1\ndata: {"n":1}\n\nid: 2\ndata: {"n":2}\n\n')
        // The connection is cut mid-stream, as when a server restarts.
        setTimeout(() => response.destroy(), 20)
      } else {
        response.write('id: 3\ndata: {"n":3}\n\n')
      }
    })
    const received: number[] = []
    const statuses: EventStreamStatus['state'][] = []
    const stream = openEventStream({
      endpoint: { baseUrl: server.baseUrl },
      path: 'api/v1/messages/stream',
      retryMs: 20,
      onEvent: (event) => received.push(JSON.parse(event.data).n),
      onStatus: (status) => statuses.push(status.state),
    })
    await waitFor(() => received.length === 3, 'the third event')
    stream.close()
    expect(received).toEqual([1, 2, 3])
    expect(lastEventIds).toEqual([undefined, '2'])
    expect(statuses.slice(0, 4)).toEqual(['connecting', 'open', 'retrying', 'connecting'])
  })

  it('says the server is away while it is down, and reconnects once it answers', async () => {
    let up = false
    server = await startServer((_request, response) => {
      if (!up) {
        response.writeHead(503).end()
        return
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('data: {"n":1}\n\n')
    })
    const statuses: EventStreamStatus[] = []
    const received: string[] = []
    const stream = openEventStream({
      endpoint: { baseUrl: server.baseUrl },
      path: 'stream',
      retryMs: 20,
      maxRetryMs: 40,
      onEvent: (event) => received.push(event.data),
      onStatus: (status) => statuses.push(status),
    })
    await waitFor(() => statuses.some((status) => status.state === 'retrying'), 'a retry')
    const retrying = statuses.find((status) => status.state === 'retrying')
    expect(retrying).toMatchObject({ reason: expect.stringMatching(/answered 503/) })
    up = true
    await waitFor(() => received.length === 1, 'the event after the server came back')
    expect(statuses.at(-1)).toEqual({ state: 'open' })
    stream.close()
    await waitFor(() => statuses.at(-1)?.state === 'closed', 'closed')
  })

  // It retried on its own backoff (500 ms doubling to 5 s) whatever the server asked.
  it('retries a 503 or a 429 when its Retry-After says, not sooner', async () => {
    for (const [refusal, retryAfter, expectedMs] of [
      [503, '1', 1_000],
      [429, new Date(Date.now() + 60_000).toUTCString(), 55_000],
    ] as const) {
      server = await startServer((_request, response) => {
        response.writeHead(refusal, { 'retry-after': retryAfter }).end()
      })
      const statuses: EventStreamStatus[] = []
      const stream = openEventStream({
        endpoint: { baseUrl: server.baseUrl },
        path: 'stream',
        retryMs: 10,
        onEvent: () => undefined,
        onStatus: (status) => statuses.push(status),
      })
      await waitFor(() => statuses.some((status) => status.state === 'retrying'), 'a retry')
      const retrying = statuses.find((status) => status.state === 'retrying') as {
        retryInMs: number
        reason: string
      }
      expect(retrying.reason).toMatch(new RegExp(`answered ${refusal}`))
      expect(retrying.retryInMs).toBeGreaterThanOrEqual(expectedMs)
      expect(retrying.retryInMs).toBeLessThanOrEqual(60_000)
      stream.close()
      await waitFor(() => statuses.at(-1)?.state === 'closed', 'closed')
      expect(statuses.at(-1)).toEqual({ state: 'closed' })
      await server.close()
      server = undefined
    }
  })

  it('stops after a stream the server ends when told it ends there', async () => {
    let connections = 0
    server = await startServer((_request, response) => {
      connections += 1
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.end('data: {"type":"run-finish"}\n\n')
    })
    const statuses: string[] = []
    openEventStream({
      endpoint: { baseUrl: server.baseUrl },
      path: 'api/v1/runs/r1/events',
      endsWhenServerCloses: true,
      retryMs: 10,
      onEvent: () => undefined,
      onStatus: (status) => statuses.push(status.state),
    })
    await waitFor(() => statuses.at(-1) === 'closed', 'closed')
    expect(connections).toBe(1)
  })
})
