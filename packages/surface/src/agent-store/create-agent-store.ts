import type { Agent } from '@baton/core'
import { createStore, type StoreApi } from 'zustand/vanilla'
import { requireListInBody } from '../http/list-in-body'
import { parseMentions } from '../mentions/parse-mentions'
import { type AgentListEndpoint, fetchAgentList } from './fetch-agent-list'
import { parseListedAgent } from './parse-listed-agent'

/** Where `load` gets the agents: a function returning the list (or `{ agents }`), or a server. */
export type AgentSource = (() => Promise<unknown>) | AgentListEndpoint

export type AgentStoreState = {
  agents: Agent[]
  status: 'idle' | 'loading' | 'ready' | 'error'
  /** Why the last load failed (`code` of the BatonError, or `UNKNOWN`). */
  error: { code: string; message: string } | null
  /** Replaces the list; every agent is validated. Throws `ValidationError` and keeps the old list. */
  setAgents(agents: readonly unknown[]): Agent[]
  /** Adds an agent, or replaces the one with the same id. */
  upsertAgent(agent: unknown): Agent
  removeAgent(id: string): boolean
  /** Loads and validates the list; rejects (and records `error`) when it cannot. */
  load(source: AgentSource): Promise<Agent[]>
  getById(id: string): Agent | undefined
  /** Case-insensitive; runs of spaces count as one. */
  getByName(name: string): Agent | undefined
  /** The agent a whole mention (`@Ops Orchestrator`, `ops`, `@swarm_research`) names. */
  getByMention(text: string): Agent | undefined
}

export type AgentStore = StoreApi<AgentStoreState>

function parseList(list: readonly unknown[]): Agent[] {
  return list.map((item, index) => parseListedAgent(item, `agents[${index}]`))
}

function describeError(error: unknown): { code: string; message: string } {
  const code = (error as { code?: unknown })?.code
  return {
    code: typeof code === 'string' ? code : 'UNKNOWN',
    message: error instanceof Error ? error.message : String(error),
  }
}

/**
 * The agents a surface knows, as a vanilla zustand store (works in Node and tests; bind it to
 * React with `useAgentStore`).
 *
 * @example
 * const agents = createAgentStore()
 * await agents.getState().load({ baseUrl: 'http://127.0.0.1:8787' })
 * agents.getState().getByMention('@Ops Orchestrator')
 */
export function createAgentStore(initial: readonly unknown[] = []): AgentStore {
  // Only the latest load may write, so a slow earlier answer never overwrites a newer one.
  let latestLoad = 0
  return createStore<AgentStoreState>()((set, get) => ({
    agents: parseList(initial),
    status: initial.length > 0 ? 'ready' : 'idle',
    error: null,
    setAgents(list) {
      const agents = parseList(list)
      latestLoad += 1
      set({ agents, status: 'ready', error: null })
      return agents
    },
    upsertAgent(input) {
      const agent = parseListedAgent(input, 'agent')
      const agents = get().agents
      const index = agents.findIndex((known) => known.id === agent.id)
      set({ agents: index < 0 ? [...agents, agent] : agents.with(index, agent) })
      return agent
    },
    removeAgent(id) {
      const agents = get().agents
      const remaining = agents.filter((agent) => agent.id !== id)
      if (remaining.length === agents.length) return false
      set({ agents: remaining })
      return true
    },
    async load(source) {
      const loadNumber = ++latestLoad
      set({ status: 'loading', error: null })
      try {
        const raw = typeof source === 'function' ? await source() : await fetchAgentList(source)
        const agents = parseList(requireListInBody(raw, 'agents'))
        if (loadNumber === latestLoad) set({ agents, status: 'ready', error: null })
        return agents
      } catch (error) {
        if (loadNumber === latestLoad) set({ status: 'error', error: describeError(error) })
        throw error
      }
    },
    getById(id) {
      return get().agents.find((agent) => agent.id === id)
    },
    getByName(name) {
      const wanted = name.trim().replace(/\s+/g, ' ').toLowerCase()
      return get().agents.find((agent) => agent.name.replace(/\s+/g, ' ').toLowerCase() === wanted)
    },
    getByMention(text) {
      const mention = text.trim().replace(/^@/, '')
      if (!mention) return undefined
      const parsed = parseMentions(`@${mention}`, get().agents)
      return parsed.task === '' ? parsed.targets[0] : undefined
    },
  }))
}
