import { type Envelope, newId } from '@baton/comm'
import {
  type Agent,
  type Budget,
  type BudgetInput,
  checkAgentInput,
  createBudget,
  grantTools,
  runAgent,
} from '@baton/core'
import { answerText, cardOutput, contextGrantedTools, StepTextCoalescer } from '@baton/mal'
import { askRemoteAgent } from '../a2a/ask-remote-agent'
import type { RunHostedAgentInput, RunHostedAgentResult } from '../services'
import type { ToolCatalogue } from '../tools/create-tool-catalogue'
import type { CreateAgentHostOptions } from './agent-host'
import type { createDelegationTools } from './delegation-tools'

/** What running a hosted agent uses of its host. */
export type CreateHostedAgentRunOptions = {
  options: CreateAgentHostOptions
  catalogue: ToolCatalogue | undefined
  /** The budget of a run given none. */
  defaultBudget: BudgetInput
  /** How agents with an `endpoint` are called. */
  endpointFetch: typeof globalThis.fetch
  /** The agent an id or a wallet names. */
  resolve: (agent: Agent | string) => Promise<Agent>
  /** The delegation tools of an agent whose card says `canDelegate`. */
  askPeerTool: ReturnType<typeof createDelegationTools>
}

/**
 * Runs a hosted agent once: its card (with the catalogue's and the delegation tools), its
 * memory, a budget, and the spend written to the ledger; a bus message for an agent with an
 * `endpoint` goes to it over A2A instead, charged as one call.
 *
 * @example
 * const run = createHostedAgentRun({
 *   options, catalogue, defaultBudget, endpointFetch, resolve, askPeerTool,
 * })
 * const { text } = await run({ agent: 'incident-analyst', input: 'hi' })
 */
export function createHostedAgentRun({
  options,
  catalogue,
  defaultBudget,
  endpointFetch,
  resolve,
  askPeerTool,
}: CreateHostedAgentRunOptions): (
  input: RunHostedAgentInput,
  message?: Envelope,
) => Promise<RunHostedAgentResult> {
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
        // A workspace's tools (granted in a task) are left out here; any other missing tool
        // (an MCP server above the agent's tier) is still UNKNOWN_TOOL.
        unprovidedTools: contextGrantedTools,
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
      // A budget made here ends with its run: its wall-limit timer would keep it, and all
      // it holds, alive until the deadline (two minutes by default) after every message.
      if (!input.budget) budget.cancel('the agent has answered')
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
    // A remote agent that streams has its reply watched as it comes, like a local one's.
    const pieces = input.onDelta ? new StepTextCoalescer({ send: input.onDelta }) : undefined
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
        ...(pieces ? { onText: (text: string) => pieces.push(text) } : {}),
      }).finally(() => pieces?.finish())
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

  return run
}
