import type { Envelope } from '@baton/comm'
import type { Agent, Budget, RunAgentOptions } from '@baton/core'
import { checkTaskWorkspaceTools, type AgentHost as PlanAgentHost } from '@baton/mal'
import { MaxDepthExceededError } from '@baton/subagents'
import { z } from 'zod'
import type { CreateAgentHostOptions } from './agent-host'

type ExtraTools = NonNullable<RunAgentOptions['extraTools']>

const SubagentInput = z.object({
  task: z.string().min(1),
  agentId: z.string().min(1).optional(),
  workspace: z.enum(['browser', 'display']).optional(),
})

/** What the delegation tools of a hosted agent use of its host. */
export type CreateDelegationToolsOptions = {
  options: CreateAgentHostOptions
  /** Runs a sub-agent's task (mal's host). */
  planHost: PlanAgentHost
  /** The agent an id or a wallet names. */
  resolve: (agent: Agent | string) => Promise<Agent>
  /** Makes the bus deliver direct messages for the agent to the hosted agent it names. */
  listen: (agentId: string) => void
  maxDelegationDepth: number
}

/**
 * The tools of an agent whose card says `canDelegate`: `ask_peer` forwards through the loop
 * guard and waits for the peer's reply, `start_subagent` runs a bounded task in a workspace of
 * its own, at most `maxDelegationDepth` levels deep.
 *
 * @example
 * const askPeerTool = createDelegationTools({
 *   options, planHost, resolve, listen, maxDelegationDepth: 3,
 * })
 * const extraTools = askPeerTool(agent, message, budget)
 */
export function createDelegationTools({
  options,
  planHost,
  resolve,
  listen,
  maxDelegationDepth,
}: CreateDelegationToolsOptions): (
  agent: Agent,
  message: Envelope | undefined,
  budget: Budget,
) => ExtraTools {
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

  return askPeerTool
}
