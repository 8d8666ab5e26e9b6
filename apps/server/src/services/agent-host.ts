import type { MessageBus } from '@baton/comm'
import type {
  Agent,
  Budget,
  BudgetInput,
  MemoryStore,
  ModelRegistry,
  RegistryClient,
} from '@baton/core'
import { createDefaultHost, type AgentHost as PlanAgentHost } from '@baton/mal'
import type { WorkspaceProvider } from '@baton/subagents'
import type { FastifyBaseLogger } from 'fastify'
import type { AgentsRepository } from '../db/agents-repository'
import type { LedgerRepository } from '../db/ledger-repository'
import { createEndpointFetch } from '../endpoints/create-endpoint-fetch'
import { NotFoundError } from '../http/http-errors'
import type { AgentHost } from '../services'
import type { ToolCatalogue } from '../tools/create-tool-catalogue'
import { createAgentBusListener } from './agent-bus-listener'
import { createDelegationTools } from './delegation-tools'
import { createHostedAgentRun } from './hosted-agent-run'

export type CreateAgentHostOptions = {
  agents: AgentsRepository
  /** The module's and MCP servers' tools, given to each run as its card lists them. */
  tools?: ToolCatalogue
  registry: RegistryClient
  ledger: LedgerRepository
  memory: MemoryStore
  models: ModelRegistry
  bus: MessageBus
  logger: FastifyBaseLogger
  /** The grant of a message whose sender gives none. */
  defaultBudget?: BudgetInput
  /** How long a forwarded question waits for the peer's reply (default 60000). */
  peerTimeoutMs?: number
  /**
   * How deep `start_subagent` may nest below the agent a message is for (default 3): its
   * sub-agent is depth 1, the sub-agents that one starts depth 2, and so on.
   */
  maxDelegationDepth?: number
  /**
   * How agents with an `endpoint` are called, over MAL `delegate` and the bus alike (default:
   * public addresses only, no redirects; see `createEndpointFetch`).
   */
  endpointFetch?: typeof globalThis.fetch
  /**
   * The workspace kinds (`browser`, `display`) `start_subagent` and MAL `task` may ask for
   * (see `createWorkspaceProviders`); none by default.
   */
  workspaceProviders?: Record<string, WorkspaceProvider>
}

export type ServerAgentHost = AgentHost &
  PlanAgentHost & {
    /** Makes the bus deliver direct messages for `agentId` to the hosted agent it names. */
    listen(agentId: string): void
    /** The budget the sender of envelope `envelopeId` grants its recipient (else the default). */
    grant(envelopeId: string, budget: BudgetInput): void
  }

/** The depth of delegation `start_subagent` allows by default (see `maxDelegationDepth`). */
export const DEFAULT_MAX_DELEGATION_DEPTH = 3

/**
 * Hosts the registered agents of this server: a direct message on the bus runs the agent
 * (its card, its memory in the database, a budget) and replies in the same correlation; a
 * MAL `delegate` or `task` runs the same way. Agents whose card says `canDelegate` get an
 * `ask_peer` tool that forwards through the loop guard and waits for the peer's reply, and a
 * `start_subagent` tool that runs a bounded task in a workspace of its own, at most
 * `maxDelegationDepth` levels deep. A card's `outputSchema` asks its model for structured
 * output, and the reply is that JSON.
 *
 * @example
 * const host = createAgentHost({ agents, registry, ledger, memory, models, bus, logger })
 * host.listen('incident-analyst')
 * const { text } = await host.runHostedAgent({ agent: 'incident-analyst', input: 'hi' })
 */
export function createAgentHost(options: CreateAgentHostOptions): ServerAgentHost {
  const endpointFetch = options.endpointFetch ?? createEndpointFetch({ allowPrivate: false })
  const catalogue = options.tools
  const planHost = createDefaultHost({
    models: options.models,
    memory: options.memory,
    fetch: endpointFetch,
    ...(options.workspaceProviders ? { workspaceProviders: options.workspaceProviders } : {}),
    ...(catalogue
      ? {
          agentTools: (agent: Agent, context: { budget: Budget; workspaceDir?: string }) =>
            catalogue.toolsFor(agent, context),
        }
      : {}),
  })
  const defaultBudget = options.defaultBudget ?? { calls: 20, costUsd: 0.5, maxWallMs: 120_000 }
  const maxDelegationDepth = options.maxDelegationDepth ?? DEFAULT_MAX_DELEGATION_DEPTH

  const resolve = async (agent: Agent | string): Promise<Agent> => {
    if (typeof agent !== 'string') return options.registry.ensureRegisteredAgent(agent.wallet)
    if (agent.startsWith('0x')) return options.registry.ensureRegisteredAgent(agent)
    const byId = await options.agents.findById(agent)
    if (!byId) throw new NotFoundError('agent', agent)
    return byId
  }

  const busListener = createAgentBusListener({
    options,
    run: (input, message) => run(input, message),
  })
  const askPeerTool = createDelegationTools({
    options,
    planHost,
    resolve,
    listen: busListener.listen,
    maxDelegationDepth,
  })
  const run = createHostedAgentRun({
    options,
    catalogue,
    defaultBudget,
    endpointFetch,
    resolve,
    askPeerTool,
  })

  return {
    runHostedAgent: (input) => run(input),
    delegate: (request) => planHost.delegate(request),
    task: (request) => planHost.task(request),
    listen: busListener.listen,
    onReplyDelta: busListener.onReplyDelta,
    grant: busListener.grant,
  }
}
