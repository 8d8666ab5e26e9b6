import type { DelegationNode } from '../api/client'

export type PlacedNode = { id: string; x: number; y: number; depth: number; node: DelegationNode }
export type TreeEdge = { id: string; source: string; target: string }
export type TreeLayout = { nodes: PlacedNode[]; edges: TreeEdge[]; width: number; height: number }

/**
 * Places a delegation tree for drawing: each level one row down, leaves side by side in
 * order, and each parent centred over its children, so no two nodes overlap. A node's id is
 * its step path (unique in a run); a repeated path (a loop's iterations) gets a suffix.
 *
 * @example
 * const { nodes, edges } = layoutTree(run.tree, { columnWidth: 220, rowHeight: 120 })
 */
export function layoutTree(
  root: DelegationNode | undefined,
  options: { columnWidth?: number; rowHeight?: number } = {},
): TreeLayout {
  const columnWidth = options.columnWidth ?? 220
  const rowHeight = options.rowHeight ?? 120
  const nodes: PlacedNode[] = []
  const edges: TreeEdge[] = []
  if (!root) return { nodes, edges, width: 0, height: 0 }
  let nextLeaf = 0
  let deepest = 0
  const used = new Map<string, number>()
  const place = (node: DelegationNode, depth: number): PlacedNode => {
    const seen = used.get(node.path) ?? 0
    used.set(node.path, seen + 1)
    const id = seen === 0 ? node.path : `${node.path}#${seen + 1}`
    deepest = Math.max(deepest, depth)
    const children = node.children.map((child) => place(child, depth + 1))
    const x =
      children.length === 0
        ? nextLeaf++ * columnWidth
        : (children[0]!.x + children[children.length - 1]!.x) / 2
    for (const child of children)
      edges.push({ id: `${id}->${child.id}`, source: id, target: child.id })
    const placed = { id, x, y: depth * rowHeight, depth, node }
    nodes.push(placed)
    return placed
  }
  place(root, 0)
  nodes.reverse()
  return {
    nodes,
    edges,
    width: Math.max(nextLeaf, 1) * columnWidth,
    height: (deepest + 1) * rowHeight,
  }
}
