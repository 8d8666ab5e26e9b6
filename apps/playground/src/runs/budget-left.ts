import type { DelegationNode } from '../api/client'

type PlanLike = { budget?: Record<string, unknown>; steps?: unknown[] } | null | undefined

function costLimit(budget: unknown): number | undefined {
  if (!budget || typeof budget !== 'object') return undefined
  const { costUsd, cost } = budget as { costUsd?: unknown; cost?: unknown }
  const limit = costUsd ?? cost
  return typeof limit === 'number' ? limit : undefined
}

// `steps[1].branches[0].steps[2]` → the step object in the plan, or undefined.
function stepAt(plan: PlanLike, path: string): Record<string, unknown> | undefined {
  let current: unknown = plan
  for (const part of path.matchAll(/([A-Za-z_]+)(?:\[(\d+)\])?/g)) {
    current = (current as Record<string, unknown> | undefined)?.[part[1]!]
    if (part[2] !== undefined) current = (current as unknown[] | undefined)?.[Number(part[2])]
  }
  return current && typeof current === 'object' ? (current as Record<string, unknown>) : undefined
}

/**
 * Dollars each node of a run's tree had left: the run's cost limit (`budget.cost` of the plan)
 * less what the run spent, and for a step with a cost limit of its own, that limit less what
 * the step spent (capped by what its parent had left). Nodes without any limit above them
 * have none (undefined).
 *
 * @example
 * budgetLeft(run.tree, run.plan).get('steps[0]') // 0.4988
 */
export function budgetLeft(root: DelegationNode | undefined, plan: PlanLike): Map<string, number> {
  const left = new Map<string, number>()
  const visit = (node: DelegationNode, parentLeft: number | undefined) => {
    const spent = node.usage?.costUsd ?? 0
    const ownLimit =
      node.op === 'run' ? costLimit(plan?.budget) : costLimit(stepAt(plan, node.path)?.budget)
    const own = ownLimit === undefined ? undefined : ownLimit - spent
    const mine =
      own === undefined ? parentLeft : parentLeft === undefined ? own : Math.min(own, parentLeft)
    if (mine !== undefined) left.set(node.path, Math.max(mine, 0))
    for (const child of node.children) visit(child, mine)
  }
  if (root) visit(root, undefined)
  return left
}
