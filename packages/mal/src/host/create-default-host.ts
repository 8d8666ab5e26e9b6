import { mkdir, mkdtemp, rm, rmdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  BatonError,
  createInMemoryMemoryStore,
  type MemoryStore,
  type ModelRegistry,
  runAgent,
  type ToolRegistry,
} from '@baton/core'
import { createSupervisor } from '@baton/subagents'
import { sendA2AMessage } from '../a2a'
import { isSpendExhaustion } from '../run/carve-budget'
import { TaskFailedError } from '../run/run-errors'
import type { AgentHost, HostDelegateRequest, HostResult, HostTaskRequest } from './agent-host'
import { answerText, cardOutput } from './card-output'

export type CreateDefaultHostOptions = {
  models?: ModelRegistry
  toolRegistry?: ToolRegistry
  /** The agents' own memory (used by `delegate` and by `task` with `isolation: none`). */
  memory?: MemoryStore
  /** Where `task` workspaces are made (default: a temporary directory, removed after the step). */
  workspaceRoot?: string
  /** How long a remote (A2A) agent may take (default 120000; the step's budget may cut it shorter). */
  a2aTimeoutMs?: number
  fetch?: typeof globalThis.fetch
}

/**
 * The default host: an agent with an `endpoint` is called over A2A; any other runs in this
 * process with `runAgent` and its card model. `task` runs through a `@baton/subagents`
 * supervisor: `isolation: workspace` gives it a new directory (and fresh memory), `memory`
 * fresh memory in a shared directory, `none` the agent's own memory.
 *
 * @example
 * const host = createDefaultHost({ workspaceRoot: './work' })
 * await runPlan(plan, { inputs, registry, host })
 */
export function createDefaultHost(options: CreateDefaultHostOptions = {}): AgentHost {
  const runOptions = {
    ...(options.models ? { models: options.models } : {}),
    ...(options.toolRegistry ? { toolRegistry: options.toolRegistry } : {}),
  }
  // With the plan's maxToolBatches, each agent run gets its tools counted and follows the
  // limit's signal, so the batch past it ends the run with TOOL_BATCHES_EXCEEDED.
  const limited = (request: HostDelegateRequest, signal: AbortSignal) => {
    const limit = request.toolBatches
    if (!limit) return { ...runOptions, signal }
    return {
      ...runOptions,
      ...(options.toolRegistry ? { toolRegistry: limit.wrapRegistry(options.toolRegistry) } : {}),
      signal: AbortSignal.any([signal, limit.signal]),
    }
  }
  return {
    async delegate(request: HostDelegateRequest): Promise<HostResult> {
      const { agent, budget, signal } = request
      if (agent.endpoint) {
        // A remote agent's own spend is its business; here it counts as one call.
        const reservation = budget.reserve({ calls: 1 })
        try {
          const reply = await sendA2AMessage({
            endpoint: agent.endpoint,
            text: request.prompt,
            signal,
            ...(options.a2aTimeoutMs ? { timeoutMs: options.a2aTimeoutMs } : {}),
            ...(options.fetch ? { fetch: options.fetch } : {}),
          })
          reservation.settle({ calls: 1 }, { wallet: agent.wallet })
          return { text: reply.text }
        } catch (error) {
          reservation.release()
          throw error
        }
      }
      const output = cardOutput(agent)
      const result = await runAgent(agent, request.prompt, {
        budget,
        ...limited(request, signal),
        ...(options.memory ? { memory: options.memory } : {}),
        ...(output ? { output } : {}),
      })
      return { text: answerText(result) }
    },

    async task(request: HostTaskRequest): Promise<HostResult> {
      const { agent, budget, signal, isolation } = request
      // An isolated task gets a directory of its own under the root, made for it alone: each
      // task has its own supervisor, whose first sub-agent is always `sub-1`, so the root
      // itself would hand every task the same `<root>/.subagents/sub-1`.
      const root = await taskRoot(options.workspaceRoot, isolation)
      const memory = isolation === 'none' ? options.memory : createInMemoryMemoryStore()
      // The supervisor's report keeps only a message; the step should fail with the budget's
      // own typed error, so the runner keeps it.
      let budgetError: BatonError | undefined
      const output = cardOutput(agent)
      const supervisor = createSupervisor({
        agent,
        workspace: { kind: 'directory', root },
        budget,
        ...(request.maxDepth === undefined ? {} : { maxDepth: request.maxDepth }),
        ...runOptions,
        runner: {
          async run(turn) {
            try {
              const result = await runAgent(turn.agent, turn.messages, {
                budget: turn.budget,
                extraTools: turn.tools,
                ...limited(request, turn.signal),
                ...(request.tools ? { tools: request.tools } : {}),
                ...(request.persona ? { persona: request.persona } : {}),
                ...(memory ? { memory } : {}),
                ...(output && turn.agent.wallet === agent.wallet ? { output } : {}),
              })
              return { text: answerText(result), messages: result.messages }
            } catch (error) {
              if (BatonError.isInstance(error) && error.code === 'BUDGET_EXCEEDED') {
                budgetError = error
              }
              throw error
            }
          },
        },
      })
      const onAbort = () => {
        // Spending the budget up is no cancellation: a turn whose last call used it up exactly
        // still finishes (and any further call is refused by the budget itself).
        if (isSpendExhaustion(signal.reason)) return
        void supervisor.cancelAll()
      }
      signal.addEventListener('abort', onAbort, { once: true })
      try {
        const id = supervisor.delegate(request.prompt, {
          workspace: isolation === 'workspace' ? 'new' : 'share',
        })
        const reports = await supervisor.waitAgents([id])
        const report = reports?.[id]
        // A finished task keeps its answer even if its last call used the budget up exactly
        // (which aborts the budget's signal); anything else on an aborted signal is that abort.
        if (report?.status === 'done') return { text: report.result }
        signal.throwIfAborted()
        if (!report) {
          throw new TaskFailedError({
            wallet: agent.wallet,
            status: 'paused',
            reason: 'its supervisor was paused',
          })
        }
        const outOfBudget = report.status === 'budget-exhausted' || report.status === 'timed-out'
        if (outOfBudget && budgetError) throw budgetError
        if (report.status === 'asking') await supervisor.cancelAgent(id)
        throw new TaskFailedError({
          wallet: agent.wallet,
          status: report.status,
          reason:
            report.status === 'asking'
              ? `it asked a question a task cannot answer: ${report.question ?? ''}`
              : (report.error ?? 'no reason given'),
        })
      } finally {
        signal.removeEventListener('abort', onAbort)
        if (!options.workspaceRoot) await rm(root, { recursive: true, force: true })
        else if (root !== options.workspaceRoot) await removeIfEmpty(root)
      }
    },
  }
}

async function taskRoot(workspaceRoot: string | undefined, isolation: string): Promise<string> {
  if (!workspaceRoot) return mkdtemp(path.join(tmpdir(), 'baton-mal-task-'))
  if (isolation !== 'workspace') return workspaceRoot
  // Under the root's `.subagents`, where a task sharing the root neither lists nor
  // snapshots it.
  const parent = path.join(workspaceRoot, '.subagents')
  await mkdir(parent, { recursive: true })
  return mkdtemp(path.join(parent, 'task-'))
}

// A task that wrote nothing leaves no empty directory behind in the caller's root.
async function removeIfEmpty(directory: string): Promise<void> {
  try {
    await rmdir(path.join(directory, '.subagents'))
  } catch {
    // Not there, or not empty: either way, nothing to tidy.
  }
  try {
    await rmdir(directory)
  } catch {
    // Not empty: the task's files stay for the caller.
  }
}
