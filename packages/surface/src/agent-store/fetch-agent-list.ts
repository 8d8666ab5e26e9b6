import { redactUrl } from '@baton/core'
import { AgentsUnavailableError } from './agents-unavailable-error'

export type AgentListEndpoint = {
  /** The server's base URL; the list is read from `GET {baseUrl}/agents`. */
  baseUrl: string
  /** Default: the global `fetch`. */
  fetch?: typeof fetch
  /** Default: 10 seconds. */
  timeoutMs?: number
  signal?: AbortSignal
}

/**
 * Reads `GET {baseUrl}/agents` and returns the raw list (an array, or the `agents` field of
 * an object). Throws `AgentsUnavailableError` for a network error, a timeout, a non-2xx
 * answer or a body that is not a JSON list.
 *
 * @example
 * const raw = await fetchAgentList({ baseUrl: 'http://127.0.0.1:8787' })
 */
export async function fetchAgentList(endpoint: AgentListEndpoint): Promise<unknown[]> {
  const url = new URL(
    'agents',
    endpoint.baseUrl.endsWith('/') ? endpoint.baseUrl : `${endpoint.baseUrl}/`,
  )
  const headers: Record<string, string> = { accept: 'application/json' }
  // fetch refuses URLs with user info; send it as Basic credentials instead.
  if (url.username || url.password) {
    const userInfo = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
    headers.authorization = `Basic ${btoa(userInfo)}`
    url.username = ''
    url.password = ''
  }
  const where = `GET ${redactUrl(url)}`
  const timeout = AbortSignal.timeout(endpoint.timeoutMs ?? 10_000)
  const signal = endpoint.signal ? AbortSignal.any([endpoint.signal, timeout]) : timeout
  let response: Response
  try {
    response = await (endpoint.fetch ?? fetch)(url, { headers, signal })
  } catch (error) {
    const detail = String((error as Error).message).replace(/\/\/[^/@\s]*@/g, '//')
    const reason = timeout.aborted ? 'timed out' : `request failed (${detail})`
    throw new AgentsUnavailableError(where, reason, { cause: error })
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw new AgentsUnavailableError(where, `the server answered ${response.status}`, {
      details: { status: response.status },
    })
  }
  let body: unknown
  try {
    body = await response.json()
  } catch (error) {
    throw new AgentsUnavailableError(where, 'the body is not JSON', { cause: error })
  }
  const list = Array.isArray(body) ? body : (body as { agents?: unknown } | null)?.agents
  if (!Array.isArray(list)) {
    throw new AgentsUnavailableError(where, 'the body is neither a list nor { agents: [...] }')
  }
  return list
}
