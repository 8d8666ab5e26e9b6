import {
  Background,
  Controls,
  Handle,
  type Node,
  type NodeProps,
  Position,
  ReactFlow,
  useReactFlow,
  useStore,
} from '@xyflow/react'
import '@xyflow/react/dist/style.css'
import { useEffect, useMemo, useState } from 'react'
import type { DelegationNode } from '../api/client'
import { formatUsdBeside, formatUsd as usd } from '../ui/format-usd'
import { budgetLeft } from './budget-left'
import { RunScreenshots } from './run-screenshots'
import { layoutTree } from './tree-layout'

type TreeNodeData = {
  runId: string
  node: DelegationNode
  label: string
  leftUsd: number | undefined
  /** The smallest spend in the run: budget left is shown finely enough for it to move. */
  finest: number | undefined
}

function TreeNodeView({ data }: NodeProps<Node<TreeNodeData>>) {
  const { runId, node, label, leftUsd, finest } = data
  const tone = node.status === 'done' ? 'ok' : node.status === 'failed' ? 'bad' : 'warn'
  return (
    <div className="tree-node" data-tree-node={node.path} data-status={node.status}>
      <Handle type="target" position={Position.Top} />
      <strong>{label}</strong>
      <span className="muted">
        {node.op} · {node.path}
      </span>{' '}
      <span className={`pill ${tone}`}>{node.status}</span>
      <div data-spend>spent {usd(node.usage?.costUsd)}</div>
      <div className="muted" data-budget-left>
        budget left {formatUsdBeside(leftUsd, finest)}
      </div>
      {node.files && node.files.length > 0 ? (
        <RunScreenshots runId={runId} files={node.files} />
      ) : null}
      <Handle type="source" position={Position.Bottom} />
    </div>
  )
}

const nodeTypes = { delegation: TreeNodeView }

// Room at the top for the zoom controls (drawn there, in a row), so they never cover a node;
// and never so small that a node's text is under 11 px (its smallest is 12 px at zoom 1):
// a tree wider than that pans instead.
const fitOptions = {
  padding: { top: '48px', left: '12px', right: '12px', bottom: '12px' } as const,
  minZoom: 0.92,
  maxZoom: 1.25,
}

// fitView alone fits once; a phone turned sideways or a new node should refit the tree too.
function FitOnResize() {
  const { fitView } = useReactFlow()
  const width = useStore((state) => state.width)
  const count = useStore((state) => state.nodeLookup.size)
  useEffect(() => {
    if (width > 0 && count > 0) void fitView(fitOptions)
  }, [fitView, width, count])
  return null
}

// The same breakpoint as the stylesheet's phone layout (max-width: 760px).
function useNarrowScreen(): boolean {
  const query = '(max-width: 760px)'
  const [narrow, setNarrow] = useState(() => window.matchMedia(query).matches)
  useEffect(() => {
    const media = window.matchMedia(query)
    const onChange = () => setNarrow(media.matches)
    media.addEventListener('change', onChange)
    return () => media.removeEventListener('change', onChange)
  }, [])
  return narrow
}

/**
 * Who delegated to whom in a run, with each node's status, spend and budget left, and the
 * screenshots its task took.
 */
export function DelegationTree({
  runId,
  root,
  plan,
  nameOf,
}: {
  runId: string
  root: DelegationNode | undefined
  plan: unknown
  /** The agent's name for a wallet, if it is a known agent. */
  nameOf: (wallet: string) => string | undefined
}) {
  const narrow = useNarrowScreen()
  const { nodes, edges } = useMemo(() => {
    // Narrower nodes (CSS) and columns on a phone, so two leaves fit without zooming out.
    const layout = layoutTree(root, { columnWidth: narrow ? 165 : 220 })
    const left = budgetLeft(root, plan as Parameters<typeof budgetLeft>[1])
    const spends = layout.nodes
      .map((placed) => placed.node.usage?.costUsd ?? 0)
      .filter((cost) => cost > 0)
    const finest = spends.length > 0 ? Math.min(...spends) : undefined
    return {
      nodes: layout.nodes.map((placed) => ({
        id: placed.id,
        type: 'delegation',
        position: { x: placed.x, y: placed.y },
        data: {
          runId,
          node: placed.node,
          label:
            placed.node.op === 'run'
              ? 'Run'
              : ((placed.node.wallet && nameOf(placed.node.wallet)) ??
                (placed.node.wallet?.startsWith('0x')
                  ? `${placed.node.wallet.slice(0, 10)}…`
                  : placed.node.wallet) ??
                placed.node.op),
          leftUsd: left.get(placed.node.path),
          finest,
        },
        draggable: false,
      })),
      edges: layout.edges.map((edge) => ({ ...edge, animated: false })),
    }
  }, [runId, root, plan, nameOf, narrow])
  if (!root) return <p className="muted">The tree appears when the run starts delegating.</p>
  return (
    <section className="tree" aria-label="Delegation tree">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        fitView
        fitViewOptions={fitOptions}
        minZoom={0.5}
        nodesConnectable={false}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <FitOnResize />
        <Controls showInteractive={false} orientation="horizontal" position="top-left" />
      </ReactFlow>
    </section>
  )
}
