import { redactUrl } from '@baton/core'
import { resolveEndpoint, stripUserInfo } from '../http/fetch-list'
import { readServerSentEvents, type ServerSentEvent } from '../swarm-runner/read-server-sent-events'
import type { ServerEndpoint } from './request-json'

/** Where a live stream stands: connecting, open, or waiting to retry after it dropped. */
export type EventStreamStatus =
  | { state: 'connecting' }
  | { state: 'open' }
  | { state: 'retrying'; reason: string; retryInMs: number; attempt: number }
  | { state: 'closed' }

/** What one connection came to: a stream that ended, or a failure and when to retry it. */
type Outcome = { ended: true } | { ended: false; reason: string; retryAfterMs?: number | undefined }

export type OpenEventStreamOptions = {
  endpoint: ServerEndpoint
  /** Relative to the base URL, e.g. `api/v1/messages/stream`. */
  path: string
  onEvent: (event: ServerSentEvent) => void
  onStatus?: (status: EventStreamStatus) => void
  /** Resume after this event id (sent as `Last-Event-ID`); later ids are tracked by themselves. */
  lastEventId?: string
  /**
   * Wait before the first retry; doubles up to `maxRetryMs` (defaults 500 ms and 5 s). A
   * refusal with `Retry-After` (a 429, a 503) is retried when it says instead.
   */
  retryMs?: number
  maxRetryMs?: number
  /** Stop for good after a stream that ends cleanly, e.g. a finished run (default false). */
  endsWhenServerCloses?: boolean
}

export type EventStream = { close(): void }

/**
 * Follows a server-sent event stream and keeps following it: when the connection drops or the
 * server is down it retries (with `Last-Event-ID`, so nothing is missed or repeated), when the
 * server's `Retry-After` says if it says, until `close()`. A refusal is retried too: an
 * `endpoint.fetch` that reads its credential per request (the playground's, once a key is
 * entered) gets past a 401 on a later try. `onStatus` tells a UI when the stream is down and
 * when it is back.
 *
 * @example
 * const stream = openEventStream({
 *   endpoint: { baseUrl: 'http://127.0.0.1:8787' },
 *   path: 'api/v1/messages/stream',
 *   onEvent: (event) => console.log(event.event, JSON.parse(event.data)),
 * })
 * stream.close()
 */
export function openEventStream(options: OpenEventStreamOptions): EventStream {
  const controller = new AbortController()
  const firstRetry = options.retryMs ?? 500
  const maxRetry = options.maxRetryMs ?? 5_000
  let lastEventId = options.lastEventId
  let attempt = 0
  const status = (next: EventStreamStatus) => {
    if (!controller.signal.aborted || next.state === 'closed') options.onStatus?.(next)
  }
  const { url, headers } = resolveEndpoint(options.endpoint.baseUrl, options.path)
  const where = `GET ${redactUrl(url)}`

  const connectOnce = async (): Promise<Outcome> => {
    status({ state: 'connecting' })
    try {
      const response = await (options.endpoint.fetch ?? fetch)(url, {
        headers: {
          accept: 'text/event-stream',
          ...options.endpoint.headers,
          ...headers,
          ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
        },
        signal: controller.signal,
      })
      if (!response.ok || !response.body) {
        await response.body?.cancel()
        return {
          ended: false,
          reason: `${where} answered ${response.status}`,
          retryAfterMs: retryAfterMsOf(response.headers.get('retry-after')),
        }
      }
      attempt = 0
      status({ state: 'open' })
      for await (const event of readServerSentEvents(response.body)) {
        if (event.id !== undefined) lastEventId = event.id
        options.onEvent(event)
      }
      return { ended: true }
    } catch (error) {
      return {
        ended: false,
        reason: `${where} failed (${stripUserInfo(String((error as Error).message))})`,
      }
    }
  }

  void (async () => {
    while (!controller.signal.aborted) {
      const outcome = await connectOnce()
      if (controller.signal.aborted) break
      if (outcome.ended && options.endsWhenServerCloses) break
      attempt += 1
      const retryInMs =
        (!outcome.ended && outcome.retryAfterMs) ||
        Math.min(maxRetry, firstRetry * 2 ** (attempt - 1))
      const reason = outcome.ended ? `${where} closed the stream` : outcome.reason
      status({ state: 'retrying', reason, retryInMs, attempt })
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, retryInMs)
        controller.signal.addEventListener('abort', () => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
    status({ state: 'closed' })
  })()

  return { close: () => controller.abort() }
}

/** `Retry-After` in milliseconds: delay-seconds or an HTTP-date; undefined when absent or unreadable. */
function retryAfterMsOf(header: string | null): number | undefined {
  if (header === null) return undefined
  const seconds = Number(header)
  if (header.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(header)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}
