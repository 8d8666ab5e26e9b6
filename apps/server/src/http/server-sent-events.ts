import { ValidationError } from '@baton/core'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'

/**
 * What a route that opens an event stream answers, for its `response` schema: the OpenAPI
 * document names the media type. The stream is written as it goes, never serialized.
 */
export const eventStreamResponse = {
  200: {
    description:
      'Server-sent events (`text/event-stream`): `id`, `event` and a JSON `data` line each; resumable with `Last-Event-ID` where events have ids',
    content: { 'text/event-stream': { schema: z.string() } },
  },
}

export type SseMessage = { id?: string | number; event?: string; data: unknown }

/**
 * What a stream may hold for a reader that does not read (a stalled client, or one that
 * opens the stream and never reads): past it the stream is cut (the connection destroyed,
 * what it held dropped), and the client reconnects (with `Last-Event-ID` where the route
 * resumes). Without it one such reader kept every live event sent after it stalled.
 */
export const MAX_BUFFERED_EVENT_BYTES = 4 * 1024 * 1024

/** The writer of one event stream (see `openEventStream`). */
export type EventStream = {
  readonly open: boolean
  /** Sends an event; false when the stream is ended, or when its reader is behind (see `drained`). */
  send(message: SseMessage): boolean
  /** Resolves once the reader has taken what was sent (or the stream has ended). */
  drained(): Promise<void>
  /** Runs `listener` when the stream ends (at once if it has). */
  onClose(listener: () => void): void
  end(): void
}

/** The writer of a stream that has ended: what a HEAD request gets. */
const endedStream: EventStream = {
  open: false,
  send: () => false,
  drained: () => Promise.resolve(),
  onClose: (listener) => listener(),
  end: () => {},
}

/**
 * Opens a server-sent events response on `reply` (hijacked from fastify) and returns a
 * writer. A HEAD request gets the stream's headers and an ended writer: it cannot read a
 * body, so nothing is subscribed or kept open for it. The stream ends when `end()` is
 * called, the client leaves, or `signal` aborts; a comment line every 15 s keeps proxies
 * from closing an idle stream. A reader that falls `maxBufferedBytes` behind is cut. A
 * writer that can wait (events read from the database) waits for `drained()` whenever
 * `send` returns false, so it never falls that far behind.
 *
 * @example
 * const sse = openEventStream(request, reply, app.baton.closing)
 * if (!sse.send({ id: 1, event: 'step-start', data: event })) await sse.drained()
 */
export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  signal: AbortSignal,
  options: { maxBufferedBytes?: number } = {},
): EventStream {
  const maxBufferedBytes = options.maxBufferedBytes ?? MAX_BUFFERED_EVENT_BYTES
  reply.hijack()
  const response = reply.raw
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) headers[name] = String(value)
  }
  response.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  })
  if (request.method === 'HEAD') {
    response.end()
    return endedStream
  }
  response.write(': connected\n\n')
  let open = true
  const closeListeners: (() => void)[] = []
  // Counted for the `baton_sse_clients` gauge while the stream is open.
  const metrics = request.server.baton?.metrics
  metrics?.sseOpened()
  const heartbeat = setInterval(() => {
    if (open) response.write(': keep-alive\n\n')
  }, 15_000)
  const end = () => {
    if (!open) return
    open = false
    metrics?.sseClosed()
    clearInterval(heartbeat)
    signal.removeEventListener('abort', end)
    for (const listener of closeListeners) listener()
    response.end()
  }
  request.raw.on('close', end)
  response.on('close', end)
  if (signal.aborted) queueMicrotask(end)
  signal.addEventListener('abort', end, { once: true })
  return {
    get open() {
      return open
    },
    send(message: SseMessage): boolean {
      if (!open) return false
      const flowing = response.write(formatEvent(message))
      if (response.writableLength <= maxBufferedBytes) return flowing
      request.log.warn(
        { url: request.url, bufferedBytes: response.writableLength },
        'event stream cut: its reader fell too far behind',
      )
      end()
      // Ending flushes first, and this reader does not read: what it holds goes now.
      response.destroy()
      return false
    },
    drained(): Promise<void> {
      if (!open || !response.writableNeedDrain) return Promise.resolve()
      return new Promise((resolve) => {
        const done = () => {
          response.off('drain', done)
          response.off('close', done)
          resolve()
        }
        response.on('drain', done)
        response.on('close', done)
      })
    },
    onClose(listener: () => void): void {
      if (open) closeListeners.push(listener)
      else listener()
    },
    end,
  }
}

/** CR, LF and NUL: a line break (any of the three spellings) or a character that voids an id. */
const unsafeInLine = /[\r\n\0]/g

/**
 * One event in the event-stream format. `id` and `event` lose every CR, LF and NUL, so no
 * value can end its line and start a field of its own (a forged `event: escalation`); the
 * data is JSON, written one `data:` line per line of it.
 *
 * @example
 * formatEvent({ id: 1, event: 'step-start', data: { n: 1 } }) // 'id: 1\nevent: step-start\ndata: {"n":1}\n\n'
 */
export function formatEvent(message: SseMessage): string {
  let text = ''
  if (message.id !== undefined) text += `id: ${String(message.id).replace(unsafeInLine, '')}\n`
  if (message.event) text += `event: ${message.event.replace(unsafeInLine, '')}\n`
  const data = JSON.stringify(message.data) ?? 'null'
  for (const line of data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`
  return `${text}\n`
}

/**
 * The last event id a reconnecting client saw (`Last-Event-ID`, or `?lastEventId=`, which the
 * route's schema reads), or -1 when it sent none. An id that is not a whole number (no stream
 * here sends one) is refused, `400` naming the header, rather than read as none: the client
 * would be given the whole stream again, every event it had.
 */
export function lastEventIdOf(request: FastifyRequest): number {
  const header = request.headers['last-event-id']
  const raw = Array.isArray(header) ? header[0] : header
  if (raw === undefined || raw.trim() === '') {
    const query = (request.query as { lastEventId?: number } | undefined)?.lastEventId
    return query ?? -1
  }
  if (!/^\d+$/.test(raw.trim())) {
    throw new ValidationError('headers', [
      {
        path: 'Last-Event-ID',
        message: `expected the id of an event this stream sent (a whole number), got ${JSON.stringify(raw.slice(0, 40))}`,
      },
    ])
  }
  return Number(raw.trim())
}
