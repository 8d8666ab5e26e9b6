import { Budget } from '@baton/core'
import { type ToolExecutionOptions, type ToolSet, tool } from 'ai'
import { z } from 'zod'
import type { Supervisor } from './types'

// The limits of a budget anywhere in Baton (calls, costUsd or cost, tokens, maxWallMs or
// seconds): a key it does not know is refused, for the model to correct, rather than dropped
// (the sub-agent would then start without the cap its caller meant).
const BudgetArgs = Budget.optional()

// Made once: a zod schema costs far more to build than the tools around it.
const DelegateInput = z.object({
  task: z.string().min(1),
  workspace: z.string().optional(),
  budget: BudgetArgs,
  model: z.string().optional(),
  agent: z.string().optional(),
  multiTurn: z.boolean().optional(),
})
const WaitInput = z.object({
  ids: z.array(z.string()).optional(),
  timeoutMs: z.number().int().positive().optional(),
})
const SendInput = z.object({ id: z.string(), text: z.string().min(1) })
const CancelInput = z.object({ id: z.string() })

/**
 * The tools an agent delegates with: `delegate_agent`, `wait_agents`, `send_agent`,
 * `cancel_agent`, all backed by its supervisor.
 *
 * @example
 * const extraTools = createDelegationTools(supervisor)
 * await runAgent(grantTools(agent, Object.keys(extraTools)), task, { budget, extraTools })
 */
export function createDelegationTools(supervisor: Supervisor): ToolSet {
  return delegationToolsFor(() => supervisor)
}

/**
 * The same tools, each call's supervisor found by `supervisorOf` from the call's options: made
 * once, they serve every supervisor that the call's `experimental_context` leads to.
 *
 * @example
 * const tools = delegationToolsFor((options) => supervisorOf(options.experimental_context))
 */
export function delegationToolsFor(
  supervisorOf: (options: ToolExecutionOptions) => Supervisor,
): ToolSet {
  return {
    delegate_agent: tool({
      description:
        'Starts a sub-agent on part of your task and returns its id. It does not see your conversation: say what to do and what to report. Then wait_agents.',
      inputSchema: DelegateInput,
      execute: async ({ task, ...options }, call) => ({
        id: supervisorOf(call).delegate(task, withoutUndefined(options)),
      }),
    }),
    wait_agents: tool({
      description:
        'Waits until your sub-agents (all, or those in ids) have finished their turn or asked you a question, and returns their reports.',
      inputSchema: WaitInput,
      // Returns the wait without awaiting it here: a suspended frame more (~250 bytes) was
      // held by every sub-agent waiting for its own in a deep tree.
      execute: async ({ ids, timeoutMs }, call) =>
        untilAborted(
          supervisorOf(call).waitAgents(ids, timeoutMs === undefined ? {} : { timeoutMs }),
          call.abortSignal,
        ).then(reportsOrPaused),
    }),
    send_agent: tool({
      description:
        'Answers a sub-agent that asked you a question, or gives a multi-turn one more to do.',
      inputSchema: SendInput,
      execute: async ({ id, text }, call) => {
        supervisorOf(call).sendAgent(id, text)
        return { sent: true }
      },
    }),
    cancel_agent: tool({
      description: 'Stops a sub-agent and everything it started; returns its report.',
      inputSchema: CancelInput,
      execute: async ({ id }, call) => supervisorOf(call).cancelAgent(id),
    }),
  }
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T
}

// What `wait_agents` answers: the reports, or that its caller was paused (`waitAgents`: null).
function reportsOrPaused(
  reports: Record<string, unknown> | null,
): Record<string, unknown> | { paused: true } {
  return reports ?? { paused: true }
}

// A run that is stopped must not sit in a wait for sub-agents that may never end.
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
