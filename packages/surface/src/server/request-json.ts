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
  /** Default: 10 seconds. */
  timeoutMs?: number
}

export type RequestJsonOptions = {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** Sent as JSON. */
  body?: unknown
  signal?: AbortSignal
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
 * `ServerUnavailableError` for a network error, a timeout or a 5xx.
 *
 * @example
 * const { agents } = await requestJson({ baseUrl }, 'api/v1/agents')
 */
export async function requestJson<Body = unknown>(
  endpoint: ServerEndpoint,
  path: string,
  options: RequestJsonOptions = {},
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
    )
  }
  if (!response.ok) throw refusal(where, response.status, body)
  return body as Body
}
