import { type BatonError, type BatonErrorOptions, redactUrl } from '@baton/core'
import { listInBody } from './list-in-body'

export type ListEndpoint = {
  /** The server's base URL (user info is sent as Basic credentials, never shown in errors). */
  baseUrl: string
  /** Default: the global `fetch`. */
  fetch?: typeof fetch
  /** Default: 10 seconds. */
  timeoutMs?: number
  signal?: AbortSignal
}

export type FetchListOptions = {
  endpoint: ListEndpoint
  /** Relative to the base URL, e.g. `agents`; the body is a list or `{ [path]: list }`. */
  path: string
  /** Makes the error thrown when the list cannot be read. */
  unavailable: (where: string, reason: string, options?: BatonErrorOptions) => BatonError
}

/**
 * A URL under `baseUrl` without user info, plus the headers that carry it instead.
 *
 * @example
 * resolveEndpoint('http://user:pw@127.0.0.1:8787/api', 'agents')
 * // { url: http://127.0.0.1:8787/api/agents, headers: { authorization: 'Basic …' } }
 */
export function resolveEndpoint(
  baseUrl: string,
  path: string,
): { url: URL; headers: Record<string, string> } {
  const url = new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`)
  const headers: Record<string, string> = {}
  // fetch refuses URLs with user info; send it as Basic credentials instead.
  if (url.username || url.password) {
    const userInfo = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
    headers.authorization = `Basic ${btoa(userInfo)}`
    url.username = ''
    url.password = ''
  }
  return { url, headers }
}

/**
 * An error message without any `//user:password@` a runtime put in it.
 *
 * @example
 * stripUserInfo('cannot fetch http://user:pw@host/x') // 'cannot fetch http://host/x'
 */
export function stripUserInfo(message: string): string {
  return message.replace(/\/\/[^/@\s]*@/g, '//')
}

/**
 * Reads `GET {baseUrl}/{path}` and returns the raw list. Throws the `unavailable` error for a
 * network error, a timeout, a non-2xx answer, or a body that is not a JSON list.
 *
 * @example
 * const raw = await fetchList({ endpoint: { baseUrl }, path: 'agents', unavailable })
 */
export async function fetchList(options: FetchListOptions): Promise<unknown[]> {
  const { endpoint, path, unavailable } = options
  const { url, headers } = resolveEndpoint(endpoint.baseUrl, path)
  const where = `GET ${redactUrl(url)}`
  const timeout = AbortSignal.timeout(endpoint.timeoutMs ?? 10_000)
  const signal = endpoint.signal ? AbortSignal.any([endpoint.signal, timeout]) : timeout
  let response: Response
  try {
    response = await (endpoint.fetch ?? fetch)(url, {
      headers: { ...headers, accept: 'application/json' },
      signal,
    })
  } catch (error) {
    const reason = timeout.aborted
      ? 'timed out'
      : `request failed (${stripUserInfo(String((error as Error).message))})`
    throw unavailable(where, reason, { cause: error })
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw unavailable(where, `the server answered ${response.status}`, {
      details: { status: response.status },
    })
  }
  let body: unknown
  try {
    body = await response.json()
  } catch (error) {
    throw unavailable(where, 'the body is not JSON', { cause: error })
  }
  const list = listInBody(body, path)
  if (!list) {
    throw unavailable(where, `the body is neither a list nor { ${path}: [...] }`)
  }
  return list
}
