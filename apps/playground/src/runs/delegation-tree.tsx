import {
  Background,
  Controls,
  Handle,
  type Node,
  type NodeProps,
  Position,
  ReactFlow,
} from '@xyflow/react'
import '@xyflow/react/dist/style.css'
import { useMemo } from 'react'
import type { DelegationNode } from '../api/client'
import { layoutTree, nodeSpend } from './tree-layout'

type TreeNodeData = { node: DelegationNode }

const usd = (value: number | undefined) => (value === undefined ? '—' : `$${value.toFixed(4)}`)

function TreeNodeView({ data }: NodeProps<Node<TreeNodeData>>) {
  const { node } = data
  const { spentUsd, leftUsd } = nodeSpend(node)
  const status = node.status ?? 'pending'
  const tone =
    status === 'done' ? 'ok' : status === 'failed' || status === 'cancelled' ? 'bad' : 'warn'
  return (
    <div className="tree-node" data-tree-node={node.id} data-status={status}>
      <Handle type="target" position={Position.Top} />
      <strong>{node.name ?? node.label ?? node.agentId ?? node.id}</strong>
      <span className={`pill ${tone}`}>{status}</span>
      <div>spent {usd(spentUsd)}</div>
      <div className="muted">budget left {usd(leftUsd)}</div>
      <Handle type="source" position={Position.Bottom} />
    </div>
  )
}

const nodeTypes = { delegation: TreeNodeView }

/** Who delegated to whom in a run, with each node's status, spend and budget left. */
export function DelegationTree({ root }: { root: DelegationNode | undefined }) {
  const { nodes, edges } = useMemo(() => {
    const layout = layoutTree(root)
    return {
      nodes: layout.nodes.map((placed) => ({
        id: placed.id,
        type: 'delegation',
        position: { x: placed.x, y: placed.y },
        data: { node: placed.node },
        draggable: false,
      })),
      edges: layout.edges.map((edge) => ({ ...edge, animated: false })),
    }
  }, [root])
  if (!root) return <p className="muted">The tree appears when the run starts delegating.</p>
  return (
    <section className="tree" aria-label="Delegation tree">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        fitView
        nodesConnectable={false}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </section>
  )
}
