import { type Envelope, type MessageBus, newId } from '@baton/comm'
import {
  type Agent,
  BatonError,
  type Budget,
  type BudgetInput,
  checkAgentInput,
  createBudget,
  grantTools,
  type MemoryStore,
  type ModelRegistry,
  type RegistryClient,
  type RunAgentOptions,
  runAgent,
} from '@baton/core'
import {
  answerText,
  cardOutput,
  checkTaskWorkspaceTools,
  createDefaultHost,
  type AgentHost as PlanAgentHost,
  StepTextCoalescer,
} from '@baton/mal'
import { MaxDepthExceededError, type WorkspaceProvider } from '@baton/subagents'
import type { FastifyBaseLogger } from 'fastify'
import { z } from 'zod'
import { askRemoteAgent } from '../a2a/ask-remote-agent'
import type { AgentsRepository } from '../db/agents-repository'
import type { LedgerRepository } from '../db/ledger-repository'
import { createEndpointFetch } from '../endpoints/create-endpoint-fetch'
import { NotFoundError } from '../http/http-errors'
import type { AgentHost, ReplyDelta, RunHostedAgentInput, RunHostedAgentResult } from '../services'
import type { ToolCatalogue } from '../tools/create-tool-catalogue'

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

type ExtraTools = NonNullable<RunAgentOptions['extraTools']>

const SubagentInput = z.object({
  task: z.string().min(1),
  agentId: z.string().min(1).optional(),
  workspace: z.enum(['browser', 'display']).optional(),
})

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
  const listening = new Map<string, () => void>()
  const replyListeners = new Set<(delta: ReplyDelta) => void>()
  const replyDelta = (delta: ReplyDelta) => {
    for (const listener of replyListeners) {
      try {
        listener(delta)
      } catch {
        // A watcher's failure (a closed socket) must not reach the agent's run.
      }
    }
  }
  // Grants wait here for the delivery of their envelope (taken once, or dropped after a minute).
  const grants = new Map<string, { budget: BudgetInput; timer: NodeJS.Timeout }>()
  const takeGrant = (envelopeId: string): BudgetInput | undefined => {
    const grant = grants.get(envelopeId)
    if (!grant) return undefined
    clearTimeout(grant.timer)
    grants.delete(envelopeId)
    return grant.budget
  }
  const defaultBudget = options.defaultBudget ?? { calls: 20, costUsd: 0.5, maxWallMs: 120_000 }
  const maxDelegationDepth = options.maxDelegationDepth ?? DEFAULT_MAX_DELEGATION_DEPTH

  const resolve = async (agent: Agent | string): Promise<Agent> => {
    if (typeof agent !== 'string') return options.registry.ensureRegisteredAgent(agent.wallet)
    if (agent.startsWith('0x')) return options.registry.ensureRegisteredAgent(agent)
    const byId = await options.agents.findById(agent)
    if (!byId) throw new NotFoundError('agent', agent)
    return byId
  }

  const askPeerTool = (agent: Agent, message: Envelope | undefined, budget: Budget): ExtraTools => {
    const tool = {
      description:
        'Ask a peer agent (by id) to do something and wait for its answer. The conversation keeps its correlation id; the loop guard counts the hop.',
      inputSchema: z.object({ agentId: z.string().min(1), content: z.string().min(1) }),
      execute: async ({ agentId, content }: { agentId: string; content: string }) => {
        listen(agentId)
        const asked = message
          ? await options.bus.forward(message, agentId, content)
          : await options.bus.send({
              from: { agentId: agent.id, agentName: agent.name },
              to: { agentId },
              content,
            })
        return { answer: await replyTo(asked, budget.signal) }
      },
    }
    const subagent = {
      description:
        'Start a sub-agent for a bounded task in a workspace of its own and wait for its answer: another agent by id, or a copy of yourself when agentId is left out. workspace: browser gives it a browser of its own, display a screen of its own (its card must list their tools). It spends from your budget.',
      inputSchema: SubagentInput,
      execute: async ({ task, agentId, workspace }: z.output<typeof SubagentInput>) => {
        // The agent a message is for is depth 0; the sub-agent it starts here is depth 1.
        const depth = 1
        if (depth > maxDelegationDepth) {
          throw new MaxDepthExceededError({ depth, maxDepth: maxDelegationDepth })
        }
        const worker = agentId
          ? await resolve(agentId)
          : // A copy of the caller that cannot delegate again, so sub-agents do not nest for ever.
            { ...agent, agentCard: { ...agent.agentCard, canDelegate: false } }
        // A browser or display it could not use is refused before anything starts.
        if (workspace) checkTaskWorkspaceTools({ agent: worker, workspace })
        const { text } = await planHost.task({
          agent: worker,
          prompt: task,
          budget: budget.child(),
          signal: budget.signal,
          path: `subagent:${worker.id}`,
          isolation: 'workspace',
          ...(workspace ? { workspace } : {}),
          // mal's host counts the worker as depth 1 too, and refuses its sub-agents past this.
          maxDepth: maxDelegationDepth,
        })
        return { answer: text }
      },
    }
    return { ask_peer: tool, start_subagent: subagent } as unknown as ExtraTools
  }

  const replyTo = (asked: Envelope, signal: AbortSignal) =>
    new Promise<string>((resolveReply, reject) => {
      const timer = setTimeout(() => {
        stop()
        reject(new Error(`no reply from ${asked.to.agentId} within the time allowed`))
      }, options.peerTimeoutMs ?? 60_000)
      const off = options.bus.on('message', (envelope) => {
        // Only the agent the question went to answers it: a reply in anyone else's name is not it.
        if (
          envelope.type === 'reply' &&
          envelope.inReplyTo === asked.id &&
          envelope.from.agentId === asked.to.agentId
        ) {
          stop()
          resolveReply(envelope.content)
        }
      })
      const onAbort = () => {
        stop()
        reject(signal.reason)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      const stop = () => {
        clearTimeout(timer)
        off()
        signal.removeEventListener('abort', onAbort)
      }
    })

  const run = async (
    input: RunHostedAgentInput,
    message?: Envelope,
  ): Promise<RunHostedAgentResult> => {
    const agent = await resolve(input.agent)
    // A message (over A2A, the bus or HTTP) the agent's card says it cannot take: refused before anything is spent.
    checkAgentInput(agent, input.input)
    const budget = input.budget ?? createBudget(defaultBudget)
    try {
      // A bus message for an agent that lives elsewhere goes to it over A2A, not run here.
      if (message && agent.endpoint) return await runRemote(agent, input, message, budget)
      const output = cardOutput(agent)
      const extraTools = {
        ...(catalogue ? await catalogue.toolsFor(agent, { budget }) : {}),
        ...(agent.agentCard.canDelegate ? askPeerTool(agent, message, budget) : {}),
      }
      // The grant goes on a copy of the card: a run binds only the tools its card lists.
      const card = grantTools(agent, Object.keys(extraTools))
      const onDelta = input.onDelta
      const pieces = onDelta ? new StepTextCoalescer({ send: onDelta }) : undefined
      const result = await runAgent(card, input.input, {
        budget,
        ...(input.signal ? { signal: input.signal } : {}),
        memory: options.memory,
        models: options.models,
        extraTools,
        ...(output ? { output } : {}),
        ...(pieces
          ? {
              onDelta: (delta) => {
                if (delta.type === 'text-delta') pieces.push(delta.text)
              },
            }
          : {}),
      }).finally(() => pieces?.finish())
      const text = answerText(result)
      input.onText?.(text)
      return {
        text,
        usage: result.usage,
        correlationId: input.correlationId ?? message?.correlationId ?? newId('corr'),
        hop: input.hop ?? message?.hop ?? 0,
      }
    } finally {
      // A message's answer is booked with its conversation, so the conversation can show it.
      const conversation = message
        ? { correlationId: message.correlationId, messageId: message.id }
        : {}
      await options.ledger.record(
        Object.entries(budget.spentByWallet()).map(([wallet, usage]) => ({
          wallet,
          usage,
          ...conversation,
        })),
      )
    }
  }

  const runRemote = async (
    agent: Agent,
    input: RunHostedAgentInput,
    message: Envelope,
    budget: Budget,
  ): Promise<RunHostedAgentResult> => {
    // A remote agent's own spend is its business; here it counts as one call (as MAL's
    // delegate charges it).
    const reservation = budget.reserve({ calls: 1 })
    try {
      const reply = await askRemoteAgent({
        agent,
        content: input.input,
        correlationId: message.correlationId,
        hop: message.hop,
        from: message.from.agentId,
        fetch: endpointFetch,
        signal: input.signal ? AbortSignal.any([input.signal, budget.signal]) : budget.signal,
        ...(options.peerTimeoutMs ? { timeoutMs: options.peerTimeoutMs } : {}),
      })
      reservation.settle({ calls: 1 }, { wallet: agent.wallet })
      input.onText?.(reply.text)
      return {
        text: reply.text,
        usage: { calls: 1, tokens: 0, costUsd: 0 },
        correlationId: message.correlationId,
        hop: message.hop,
      }
    } catch (error) {
      reservation.release()
      throw error
    }
  }

  const listen = (agentId: string) => {
    if (listening.has(agentId)) return
    const off = options.bus.subscribe(agentId, async (message) => {
      if (message.type !== 'direct') return
      let text: string
      const granted = takeGrant(message.id)
      const streaming = replyListeners.size > 0
      try {
        const result = await run(
          {
            ...(granted ? { budget: createBudget(granted) } : {}),
            agent: agentId,
            input: message.content,
            correlationId: message.correlationId,
            hop: message.hop,
            from: message.from.agentId,
            // The reply's text, live, for whoever watches the conversation (it is not stored).
            ...(streaming
              ? {
                  onDelta: (text: string) =>
                    replyDelta({
                      correlationId: message.correlationId,
                      inReplyTo: message.id,
                      from: { agentId },
                      to: { agentId: message.from.agentId },
                      text,
                    }),
                }
              : {}),
          },
          message,
        )
        text = result.text
      } catch (error) {
        // A message to a revoked or unknown agent gets no reply; a failure is answered.
        if (
          BatonError.isInstance(error) &&
          ['NOT_FOUND', 'UNREGISTERED_AGENT'].includes(error.code)
        )
          return
        text = `[error] ${BatonError.isInstance(error) ? error.shortMessage : (error as Error).message}`
        options.logger.warn({ err: error, agentId }, 'hosted agent failed a message')
      }
      await options.bus.reply(message, text).catch((error: unknown) => {
        options.logger.warn({ err: error, agentId }, 'reply refused')
      })
    })
    listening.set(agentId, off)
  }

  return {
    runHostedAgent: (input) => run(input),
    delegate: (request) => planHost.delegate(request),
    task: (request) => planHost.task(request),
    listen,
    onReplyDelta(listener) {
      replyListeners.add(listener)
      return () => replyListeners.delete(listener)
    },
    grant(envelopeId, budget) {
      const timer = setTimeout(() => grants.delete(envelopeId), 60_000)
      timer.unref()
      grants.set(envelopeId, { budget, timer })
    },
  }
}
