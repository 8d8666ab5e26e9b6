import { newId } from '@baton/comm'
import { redactUrl } from '@baton/core'
import { resolveEndpoint, stripUserInfo } from '../http/fetch-list'
import { ServerRefusedError, ServerUnavailableError } from './server-errors'

/** Where and how to reach a Baton server. */
export type ServerEndpoint = {
  /** The server's base URL, e.g. `http://127.0.0.1:8787` (the `/api/v1` prefix is added). */
  baseUrl: string
  /** Default: the global `fetch`. */
  fetch?: typeof fetch
  /** Sent with every request (e.g. `authorization: Bearer …`). */
  headers?: Record<string, string>
  /** Default: 10 seconds, for each try. */
  timeoutMs?: number
  /**
   * How long a request made `once` (a message, a run, an agent's registration, a swarm, an
   * escalation's allow or stop, a run's cancel) keeps trying when no answer reached it: the
   * server away or restarting, a timeout, `502`/`503`/`504`, or `409 IDEMPOTENCY_KEY_IN_USE`
   * (its first try still being answered). Every try carries the same `Idempotency-Key`, so
   * the server does it once, however many tries reached it.
   * Default: 30 seconds; 0 tries once.
   */
  retryForMs?: number
}

export type RequestJsonOptions = {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** Sent as JSON. */
  body?: unknown
  signal?: AbortSignal
  /**
   * The request creates, changes or decides something the server must do once (a request to
   * one of the server's routes that honour `Idempotency-Key`: every change a person makes in
   * the playground): it is sent with a key and tried again, with that key, as
   * `ServerEndpoint.retryForMs` says.
   */
  once?: boolean
}

/** `ServerEndpoint.retryForMs`'s default. */
export const DEFAULT_RETRY_FOR_MS = 30_000
/** The wait after the first failed try; it doubles after each, up to `MAX_RETRY_WAIT_MS`. */
const FIRST_RETRY_WAIT_MS = 200
const MAX_RETRY_WAIT_MS = 2_000
/** Answers that say the server did not carry the request out, or has not yet. */
const retriedStatuses = new Set([502, 503, 504])

/** Whether a try that failed with `error` may be sent again, with the same key. */
function worthRetrying(error: unknown): boolean {
  if (error instanceof ServerUnavailableError) {
    return error.status === undefined || retriedStatuses.has(error.status)
  }
  return error instanceof ServerRefusedError && error.code === 'IDEMPOTENCY_KEY_IN_USE'
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}

type ErrorBody = { error?: { code?: unknown; message?: unknown; details?: unknown } | string }

function refusal(where: string, status: number, body: unknown): ServerRefusedError {
  const error = (body as ErrorBody | null)?.error
  if (typeof error === 'string') return new ServerRefusedError({ where, status, message: error })
  const code = typeof error?.code === 'string' ? error.code : undefined
  const message = typeof error?.message === 'string' ? error.message : undefined
  const details =
    error?.details && typeof error.details === 'object'
      ? (error.details as Record<string, unknown>)
      : undefined
  return new ServerRefusedError({
    where,
    status,
    ...(code ? { code } : {}),
    ...(message ? { message } : {}),
    ...(details ? { details } : {}),
  })
}

/**
 * One JSON request to a Baton server. Resolves with the parsed body of a 2xx answer; throws
 * `ServerRefusedError` (with the server's code, message and details) for a 4xx and
 * `ServerUnavailableError` for a network error, a timeout or a 5xx. With `once`, it carries
 * an `Idempotency-Key` and is tried again, with that key, while no answer reaches it (see
 * `ServerEndpoint.retryForMs`): a message whose answer was lost is sent once, not twice.
 *
 * @example
 * const { agents } = await requestJson({ baseUrl }, 'api/v1/agents')
 * const { envelope } = await requestJson({ baseUrl }, 'api/v1/messages', { body, once: true })
 */
export async function requestJson<Body = unknown>(
  endpoint: ServerEndpoint,
  path: string,
  options: RequestJsonOptions = {},
): Promise<Body> {
  if (!options.once) return requestOnce<Body>(endpoint, path, options)
  // From the platform's random bytes, which a page served over plain HTTP has too (it has no
  // `crypto.randomUUID`).
  const key = { 'idempotency-key': newId('create') }
  const started = Date.now()
  const deadline = started + (endpoint.retryForMs ?? DEFAULT_RETRY_FOR_MS)
  for (let tries = 1; ; tries += 1) {
    try {
      return await requestOnce<Body>(endpoint, path, options, key)
    } catch (error) {
      // Half to all of the doubled wait: clients that lost the server together do not all
      // come back in the same instant.
      const pause =
        Math.min(FIRST_RETRY_WAIT_MS * 2 ** (tries - 1), MAX_RETRY_WAIT_MS) *
        (0.5 + Math.random() / 2)
      if (!worthRetrying(error) || options.signal?.aborted || Date.now() + pause > deadline) {
        if (tries === 1 || !(error instanceof ServerUnavailableError)) throw error
        const { where, reason } = error.details as { where: string; reason: string }
        const seconds = ((Date.now() - started) / 1000).toFixed(1)
        throw new ServerUnavailableError(where, `${reason}; tried ${tries} times in ${seconds} s`, {
          cause: error,
          ...(error.status === undefined ? {} : { status: error.status }),
          details: { tries },
        })
      }
      await wait(pause, options.signal)
    }
  }
}

async function requestOnce<Body>(
  endpoint: ServerEndpoint,
  path: string,
  options: RequestJsonOptions,
  extraHeaders: Record<string, string> = {},
): Promise<Body> {
  const method = options.method ?? (options.body === undefined ? 'GET' : 'POST')
  const { url, headers } = resolveEndpoint(endpoint.baseUrl, path)
  const where = `${method} ${redactUrl(url)}`
  const timeout = AbortSignal.timeout(endpoint.timeoutMs ?? 10_000)
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
  let response: Response
  let text: string
  try {
    response = await (endpoint.fetch ?? fetch)(url, {
      method,
      headers: {
        accept: 'application/json',
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...endpoint.headers,
        ...headers,
        ...extraHeaders,
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal,
    })
    text = await response.text()
  } catch (error) {
    const reason = timeout.aborted
      ? 'timed out'
      : `request failed (${stripUserInfo(String((error as Error).message))})`
    throw new ServerUnavailableError(where, reason, { cause: error })
  }
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = text
  }
  if (response.status >= 500) {
    const refused = refusal(where, response.status, body)
    throw new ServerUnavailableError(
      where,
      `it answered ${response.status} (${refused.shortMessage})`,
      { status: response.status },
    )
  }
  if (!response.ok) throw refusal(where, response.status, body)
  return body as Body
}
