import type { DelegationNode } from '../api/client'

export type PlacedNode = {
  id: string
  x: number
  y: number
  depth: number
  node: DelegationNode
}
export type TreeEdge = { id: string; source: string; target: string }

export type TreeLayout = { nodes: PlacedNode[]; edges: TreeEdge[]; width: number; height: number }

/**
 * Places a delegation tree for drawing: each level one row down, leaves side by side in
 * order, and each parent centred over its children, so no two nodes overlap. Node ids are
 * made unique by their path when the server repeats one (an agent delegated to twice).
 *
 * @example
 * const { nodes, edges } = layoutTree(run.tree, { columnWidth: 220, rowHeight: 110 })
 */
export function layoutTree(
  root: DelegationNode | undefined,
  options: { columnWidth?: number; rowHeight?: number } = {},
): TreeLayout {
  const columnWidth = options.columnWidth ?? 220
  const rowHeight = options.rowHeight ?? 110
  const nodes: PlacedNode[] = []
  const edges: TreeEdge[] = []
  if (!root) return { nodes, edges, width: 0, height: 0 }
  let nextLeaf = 0
  let deepest = 0
  const used = new Set<string>()
  const place = (node: DelegationNode, depth: number, path: string): PlacedNode => {
    const base = String(node.id ?? path)
    const id = used.has(base) ? `${base}@${path}` : base
    used.add(id)
    deepest = Math.max(deepest, depth)
    const children = (node.children ?? []).map((child, index) =>
      place(child, depth + 1, `${path}.${index}`),
    )
    const x =
      children.length === 0
        ? nextLeaf++ * columnWidth
        : (children[0]!.x + children[children.length - 1]!.x) / 2
    const placed = { id, x, y: depth * rowHeight, depth, node }
    for (const child of children)
      edges.push({ id: `${id}->${child.id}`, source: id, target: child.id })
    nodes.push(placed)
    return placed
  }
  place(root, 0, '0')
  nodes.reverse()
  return {
    nodes,
    edges,
    width: Math.max(nextLeaf, 1) * columnWidth,
    height: (deepest + 1) * rowHeight,
  }
}

/**
 * What a node spent and has left, in dollars, whichever field names the server used.
 *
 * @example
 * nodeSpend(node) // { spentUsd: 0.0012, leftUsd: 0.0488 }
 */
export function nodeSpend(node: DelegationNode): { spentUsd?: number; leftUsd?: number } {
  const spent = node.spentUsd ?? node.costUsd ?? node.usage?.costUsd
  const left =
    node.budgetLeftUsd ??
    node.remaining?.costUsd ??
    (node.budget?.costUsd !== undefined && spent !== undefined
      ? node.budget.costUsd - spent
      : undefined)
  return {
    ...(spent === undefined ? {} : { spentUsd: spent }),
    ...(left === undefined ? {} : { leftUsd: left }),
  }
}
