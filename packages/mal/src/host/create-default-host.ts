import {
  createInMemoryMemoryStore,
  type MemoryStore,
  type ModelRegistry,
  runAgent,
  type ToolRegistry,
} from '@baton/core'
import { runTask, type WorkspaceProvider } from '@baton/subagents'
import { sendA2AMessage } from '../a2a'
import { conclaveToolsFor } from '../conclave/conclave-tools-for'
import { withGrantedTools } from '../granted-tools'
import { isSpendExhaustion } from '../run/carve-budget'
import { TaskFailedError } from '../run/run-errors'
import type { AgentHost, HostDelegateRequest, HostResult, HostTaskRequest } from './agent-host'
import { type AgentToolsProvider, agentRunOptions, type HostRunOptions } from './agent-run-options'
import { answerText, cardOutput } from './card-output'
import { collectTaskFiles } from './collect-task-files'
import { createTaskRunner } from './task-runner'
import { taskWorkspace } from './task-workspace'

export type CreateDefaultHostOptions = {
  models?: ModelRegistry
  toolRegistry?: ToolRegistry
  /**
   * Tools the runtime gives each agent run (of `delegate`, `task` and their sub-agents), such
   * as MCP tools; they must already be gated by the agent's card.
   */
  agentTools?: AgentToolsProvider
  /** The agents' own memory (used by `delegate` and by `task` with `isolation: none`). */
  memory?: MemoryStore
  /**
   * Where `task` workspaces are made: each `isolation: workspace` task gets
   * `<root>/.subagents/task-<random>` of its own, and its files stay there (default: a
   * temporary directory per task, removed after the step).
   */
  workspaceRoot?: string
  /**
   * Providers of the workspace kinds a `task` may ask for (`workspace: browser | display`),
   * e.g. `{ browser: createBrowserWorkspaceProvider(...), display: createDisplayWorkspaceProvider(...) }`.
   * A task asking for a kind not given here fails with `UNKNOWN_WORKSPACE_KIND`.
   */
  workspaceProviders?: Record<string, WorkspaceProvider>
  /** How long a remote (A2A) agent may take (default 120000; the step's budget may cut it shorter). */
  a2aTimeoutMs?: number
  fetch?: typeof globalThis.fetch
  /**
   * A tool an agent's card lists that its run here is not given: by default a workspace's or
   * the conclave's tools (`contextGrantedTools`) are left out of a `delegate`, and any other is
   * `UNKNOWN_TOOL`; `'skip'` leaves out any (a server whose cards were checked against its
   * catalogue at registration), `'throw'` none.
   */
  unprovidedTools?: 'throw' | 'skip' | readonly string[]
}

/**
 * The default host: an agent with an `endpoint` is called over A2A; any other runs in this
 * process with `runAgent` and its card model. `task` runs as one bounded sub-agent
 * (`runTask` of `@baton/subagents`): `isolation: workspace` gives it a new directory (and
 * fresh memory), `memory` fresh memory in a shared directory, `none` the agent's own memory.
 * A request's `conclave` gives the agent (and its sub-agents) the conclave tools.
 *
 * @example
 * const host = createDefaultHost({ workspaceRoot: './work' })
 * await runPlan(plan, { inputs, registry, host })
 */
export function createDefaultHost(options: CreateDefaultHostOptions = {}): AgentHost {
  const host: HostRunOptions = {
    ...(options.models ? { models: options.models } : {}),
    ...(options.toolRegistry ? { toolRegistry: options.toolRegistry } : {}),
    ...(options.agentTools ? { agentTools: options.agentTools } : {}),
    ...(options.unprovidedTools ? { unprovidedTools: options.unprovidedTools } : {}),
  }
  return {
    async delegate(request: HostDelegateRequest): Promise<HostResult> {
      const { agent, budget, signal } = request
      if (agent.endpoint) return askRemote(request, options)
      const output = cardOutput(agent)
      const conclaveTools = request.conclave
        ? conclaveToolsFor(request.conclave, agent.wallet)
        : undefined
      const extraTools = options.agentTools
        ? { ...(await options.agentTools(agent, { budget })), ...conclaveTools }
        : (conclaveTools ?? {})
      const run = agentRunOptions({
        budget,
        host,
        extraTools,
        toolBatches: request.toolBatches,
        signal,
        onToolCall: request.onToolCall,
      })
      if (options.memory) run.memory = options.memory
      if (output) run.output = output
      if (request.onDelta) run.onDelta = request.onDelta
      const result = await runAgent(
        withGrantedTools(agent, Object.keys(extraTools)),
        request.prompt,
        run,
      )
      return { text: answerText(result) }
    },

    async task(request: HostTaskRequest): Promise<HostResult> {
      const { agent, budget, signal, isolation } = request
      const place = taskWorkspace({
        workspaceRoot: options.workspaceRoot,
        isolation,
        ...(request.workspace ? { kind: request.workspace } : {}),
        providers: options.workspaceProviders ?? {},
      })
      const runner = createTaskRunner({
        request,
        host,
        memory: isolation === 'none' ? options.memory : createInMemoryMemoryStore(),
      })
      // Spending the budget up is no cancellation: a turn whose last call used it up exactly
      // still finishes (and any further call is refused by the budget itself).
      const cancel = new AbortController()
      const onAbort = () => {
        if (!isSpendExhaustion(signal.reason)) cancel.abort(signal.reason)
      }
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
      try {
        const report = await runTask({
          agent,
          budget,
          workspace: place.workspace,
          ...(options.workspaceProviders ? { workspaceProviders: options.workspaceProviders } : {}),
          runner,
          ...host,
          ...(request.maxDepth === undefined ? {} : { maxDepth: request.maxDepth }),
          task: request.prompt,
          delegate: { workspace: place.delegate },
          signal: cancel.signal,
        })
        // A finished task keeps its answer even if its last call used the budget up exactly
        // (which aborts the budget's signal); anything else on an aborted signal is that abort.
        if (report.status === 'done') return { text: report.result }
        signal.throwIfAborted()
        const outOfBudget = report.status === 'budget-exhausted' || report.status === 'timed-out'
        if (outOfBudget && runner.budgetError) throw runner.budgetError
        // The plan's maxToolBatches ended it: the step fails with that error, as a delegate does.
        request.toolBatches?.signal.throwIfAborted()
        // runTask cancels a task that asks (no one can answer it): the question says why.
        const asked = report.status === 'cancelled' ? runner.question : undefined
        throw new TaskFailedError({
          wallet: agent.wallet,
          status: asked === undefined ? report.status : 'asking',
          reason:
            asked === undefined
              ? (report.error ?? 'no reason given')
              : `it asked a question a task cannot answer: ${asked}`,
        })
      } finally {
        signal.removeEventListener('abort', onAbort)
        try {
          // The screenshots outlive the task only if the caller keeps them, now.
          if (request.onFiles && place.kindDirectory) {
            await request.onFiles(await collectTaskFiles(place.kindDirectory))
          }
        } finally {
          await place.remove()
        }
      }
    },
  }
}

// A remote agent's own spend is its business; here it counts as one call.
async function askRemote(
  request: HostDelegateRequest,
  options: CreateDefaultHostOptions,
): Promise<HostResult> {
  const { agent, budget, signal, onDelta } = request
  const reservation = budget.reserve({ calls: 1 })
  try {
    const reply = await sendA2AMessage({
      endpoint: agent.endpoint!,
      text: request.prompt,
      signal,
      agent: { wallet: agent.wallet, name: agent.name },
      ...(options.a2aTimeoutMs ? { timeoutMs: options.a2aTimeoutMs } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      // A remote agent that streams writes its answer into the step as it comes.
      ...(onDelta
        ? { onText: (text: string) => onDelta({ type: 'text-delta', step: 0, text }) }
        : {}),
    })
    reservation.settle({ calls: 1 }, { wallet: agent.wallet })
    return { text: reply.text }
  } catch (error) {
    reservation.release()
    throw error
  }
}
