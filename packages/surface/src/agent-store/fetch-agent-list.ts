import { fetchList, type ListEndpoint } from '../http/fetch-list'
import { AgentsUnavailableError } from './agents-unavailable-error'

/** Where the agent list is read from: `GET {baseUrl}/agents`. */
export type AgentListEndpoint = ListEndpoint

/**
 * Reads `GET {baseUrl}/agents` and returns the raw list (an array, or the `agents` field of
 * an object). Throws `AgentsUnavailableError` for a network error, a timeout, a non-2xx
 * answer or a body that is not a JSON list.
 *
 * @example
 * const raw = await fetchAgentList({ baseUrl: 'http://127.0.0.1:8787' })
 */
export function fetchAgentList(endpoint: AgentListEndpoint): Promise<unknown[]> {
  return fetchList({
    endpoint,
    path: 'agents',
    unavailable: (where, reason, options) => new AgentsUnavailableError(where, reason, options),
  })
}
