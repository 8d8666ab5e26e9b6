import {
  type Agent,
  type AgentDelta,
  checkAgentInput,
  isTrustTierAtLeast,
  TrustTierTooLowError,
} from '@baton/core'
import { MaxDepthExceededError } from '@baton/subagents'
import type { HostDelegateRequest, HostFile } from '../../host'
import type { DelegateStep, TaskStep } from '../../plan'
import { renderTemplate } from '../../template'
import { checkTaskWorkspaceTools } from '../check-task-workspace-tools'
import type { StepContext, StepOutcome } from './step-context'

/**
 * Runs a `task` or `delegate` step: the registry vouches for the agent first (any failure
 * fails the step, before anything is spent), then the host runs it with its card model.
 *
 * @example
 * const { value, wallet } = await runAgentStep(context) // value: the agent's answer
 */
export async function runAgentStep(
  context: StepContext<TaskStep | DelegateStep>,
  onAgent?: (agent: Agent) => void,
): Promise<StepOutcome> {
  const { step, budget, scope, services, path, onText } = context
  // The agent itself is depth 1: a plan with maxDepth 0 delegates to no one.
  if (services.maxDepth !== undefined && services.maxDepth < 1) {
    throw new MaxDepthExceededError({ depth: 1, maxDepth: services.maxDepth })
  }
  const wallet = renderTemplate(step.agentWallet, scope)
  const agent = await services.registry.ensureRegisteredAgent(wallet, { signal: budget.signal })
  onAgent?.(agent)
  const tier = agent.agentCard.trustTier
  if (step.minTrustTier && !isTrustTierAtLeast(tier, step.minTrustTier)) {
    throw new TrustTierTooLowError({
      wallet: agent.wallet,
      tier,
      required: step.minTrustTier,
      where: `this ${step.op}`,
    })
  }
  const prompt = renderTemplate(step.prompt, scope)
  // Before anything is spent: a message the agent's card says it cannot take is refused here.
  checkAgentInput(agent, prompt)
  if (step.op === 'task' && step.workspace) {
    checkTaskWorkspaceTools({ agent, workspace: step.workspace, tools: step.tools })
  }
  // Set field by field, in the order the host has always seen them: a spread per optional
  // field costs more than the request's own work.
  const request: HostDelegateRequest = { agent, prompt, budget, signal: budget.signal, path }
  if (services.maxDepth !== undefined) request.maxDepth = services.maxDepth
  if (services.toolBatches) request.toolBatches = services.toolBatches
  // The agent and everything under it share the run's state (a custom host may ignore it).
  request.conclave = services.conclave
  if (onText) {
    request.onDelta = (delta: AgentDelta) => {
      if (delta.type === 'text-delta') onText(delta.text)
    }
  }
  if (context.onToolCall) request.onToolCall = context.onToolCall
  const result =
    step.op === 'delegate'
      ? await services.host.delegate(request)
      : await services.host.task({
          ...request,
          isolation: step.isolation,
          ...(step.workspace ? { workspace: step.workspace } : {}),
          ...(step.workspace && context.onFiles
            ? { onFiles: (files: HostFile[]) => context.onFiles!(files, agent.wallet) }
            : {}),
          ...(step.tools ? { tools: step.tools } : {}),
          ...(step.persona === undefined ? {} : { persona: renderTemplate(step.persona, scope) }),
        })
  return { value: result.text, wallet: agent.wallet }
}
