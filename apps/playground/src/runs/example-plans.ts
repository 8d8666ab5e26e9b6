import type { Agent } from '@baton/core'

/**
 * A plan to start from when the server has no saved plans: the orchestrator delegates to the
 * first agent that does not delegate, then stops with its answer.
 *
 * @example
 * const source = examplePlan(agents)
 */
export function examplePlan(agents: readonly Agent[]): string {
  const worker = agents.find(
    (agent) => !agent.agentCard.canDelegate && !agent.id.startsWith('swarm_'),
  )
  return `name: risk-review
inputs: { request: string }
budget: { maxWallMs: 300000, cost: 0.50 }
steps:
  - op: delegate
    saveAs: analysis
    agentWallet: "${worker?.wallet ?? '0x…'}"
    prompt: "Analyze this request and return risk notes: {{inputs.request}}"
    budget: { maxWallMs: 120000 }
  - op: stop
    output: "{{analysis}}"
`
}
