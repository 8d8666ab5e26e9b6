import { connect, type Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenTestApp } from '../__fixtures__/listen-test-app'
import { MAX_BUFFERED_EVENT_BYTES } from './server-sent-events'

// An event stream whose reader stops reading (a stalled client, or one that opens the stream
// and never reads) must not make the server keep, for ever, every event sent after it: with
// many parties on one server, any reader could grow its memory without bound.
let app: FastifyInstance
let port: number
beforeAll(async () => {
  let base: string
  ;({ app, base } = await listenTestApp({
    settings: { rateLimit: { max: 100_000, windowMs: 60_000 }, bodyLimit: 2 * 1024 * 1024 },
  }))
  port = Number(new URL(base).port)
})
afterAll(async () => {
  await app?.close()
})

/** A raw reader of an event stream: counts the message events it reads, and when it ended. */
function openReader(path: string) {
  const socket: Socket = connect({ host: '127.0.0.1', port })
  let text = ''
  let received = 0
  let messages = 0
  let finished = false
  let markEnded = () => {}
  // Cut (the connection closed) or ended (the response's last chunk: the connection is kept).
  const ended = new Promise<void>((resolve) => {
    markEnded = resolve
    socket.on('close', () => resolve())
    socket.on('error', () => resolve())
  })
  const opened = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length
      text += chunk.toString('latin1')
      if (text.includes(': connected')) resolve()
      // Count and drop whole events, so a long stream is not kept here either.
      if (text.endsWith('\r\n0\r\n\r\n')) markEnded()
      let end = text.indexOf('\n\n')
      while (end >= 0) {
        const event = text.slice(0, end)
        if (event.includes('event: message')) messages += 1
        if (event.includes('event: run-finish')) finished = true
        text = text.slice(end + 2)
        end = text.indexOf('\n\n')
      }
    })
  })
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`)
  return {
    socket,
    opened,
    ended,
    get received() {
      return received
    },
    get messages() {
      return messages
    },
    /** It read the run's last event. */
    get finished() {
      return finished
    },
  }
}

const waitOr = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise.then(() => 'done' as const), sleep(ms).then(() => 'timed out' as const)])
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('a reader of an event stream that stops reading', () => {
  it('is cut once the server holds more than the bound for it, while a reader that reads gets every event', async () => {
    const stalled = openReader('/api/v1/messages/stream')
    const reading = openReader('/api/v1/messages/stream')
    await Promise.all([stalled.opened, reading.opened])
    // From here on, the stalled reader reads nothing: what the server sends it piles up.
    stalled.socket.pause()
    await sleep(100)

    // 48 messages of 512 KiB: 24 MiB for each reader, more than the bound and all that the
    // kernel's socket buffers on both sides take in.
    const content = 'x'.repeat(512 * 1024)
    const count = 48
    for (let index = 0; index < count; index += 1) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/messages',
        payload: {
          from: { agentId: 'flood' },
          to: { agentId: 'analyst' },
          type: 'broadcast',
          content,
        },
      })
      expect(response.statusCode).toBe(202)
    }
    await waitFor(() => reading.messages === count, 30_000)
    expect(reading.messages).toBe(count)

    // The server cut the stalled stream: reading what it holds, the reader comes to its end,
    // having got less than was sent.
    stalled.socket.resume()
    expect(await waitOr(stalled.ended, 20_000)).toBe('done')
    expect(stalled.messages).toBeLessThan(count)
    expect(stalled.received).toBeLessThan(count * content.length)
    console.log(
      `[slow readers] the stalled reader got ${stalled.messages} of ${count} messages (${(stalled.received / 2 ** 20).toFixed(1)} MiB) before the cut; bound ${MAX_BUFFERED_EVENT_BYTES / 2 ** 20} MiB`,
    )
    // The reader that reads is still served.
    expect(reading.socket.destroyed).toBe(false)
    reading.socket.destroy()
  }, 90_000)
})

describe('a reader catching up on a long run history, slowly', () => {
  it('gets every stored event and the end of the stream: the server waits for it instead of cutting it', async () => {
    // 40 steps whose events each carry 512 KiB: ~20 MiB of history, five times the bound.
    const plan = {
      name: 'slow-reader-history',
      inputs: { big: 'string' },
      steps: [
        { op: 'scratch', action: 'write', key: 'big', value: '{{inputs.big}}' },
        {
          op: 'loop',
          while: 'true',
          maxIters: 40,
          do: [{ op: 'scratch', action: 'read', key: 'big', saveAs: 'copy' }],
        },
        { op: 'stop', output: 'done' },
      ],
    }
    const started = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: { plan, inputs: { big: 'y'.repeat(512 * 1024) } },
    })
    expect(started.statusCode).toBe(202)
    const id = started.json().id as string
    let status = ''
    const until = Date.now() + 60_000
    while (status !== 'done' && Date.now() < until) {
      status = (await app.inject({ method: 'GET', url: `/api/v1/runs/${id}` })).json().status
      if (status !== 'done') await sleep(100)
    }
    expect(status).toBe('done')

    const reader = openReader(`/api/v1/runs/${id}/events`)
    await reader.opened
    reader.socket.pause()
    await sleep(1_500)
    reader.socket.resume()
    // Read to its end: the server ends the stream after the run's last event, not before.
    expect(await waitOr(reader.ended, 60_000)).toBe('done')
    expect(reader.finished).toBe(true)
    expect(reader.received).toBeGreaterThan(5 * MAX_BUFFERED_EVENT_BYTES)
  }, 120_000)
})

async function waitFor(done: () => boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs
  while (!done() && Date.now() < until) await sleep(50)
}
