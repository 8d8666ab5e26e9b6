import { describe, expect, it } from 'vitest'
import type { DelegationNode } from '../api/client'
import { budgetLeft } from './budget-left'
import { layoutTree } from './tree-layout'

function node(
  path: string,
  op: string,
  children: DelegationNode[] = [],
  costUsd = 0,
): DelegationNode {
  return {
    path,
    op,
    wallet: null,
    status: 'done',
    usage: { calls: 1, tokens: 10, costUsd },
    children,
  }
}

const tree = node(
  'steps',
  'run',
  [
    node('steps[0]', 'fanout', [
      node('steps[0].branches[0]', 'delegate', [], 0.1),
      node('steps[0].branches[1]', 'task', [], 0.05),
    ]),
    node('steps[1]', 'stop'),
  ],
  0.15,
)

describe('layoutTree', () => {
  it('puts each level one row down and centres a parent over its children', () => {
    const { nodes, edges } = layoutTree(tree, { columnWidth: 100, rowHeight: 50 })
    const at = Object.fromEntries(nodes.map((placed) => [placed.id, { x: placed.x, y: placed.y }]))
    expect(at).toEqual({
      steps: { x: 125, y: 0 },
      'steps[0]': { x: 50, y: 50 },
      'steps[0].branches[0]': { x: 0, y: 100 },
      'steps[0].branches[1]': { x: 100, y: 100 },
      'steps[1]': { x: 200, y: 50 },
    })
    expect(edges.map((edge) => `${edge.source}>${edge.target}`).sort()).toEqual([
      'steps>steps[0]',
      'steps>steps[1]',
      'steps[0]>steps[0].branches[0]',
      'steps[0]>steps[0].branches[1]',
    ])
  })

  it('never puts two nodes in one place, and keeps repeated paths apart', () => {
    const loop = node('steps', 'run', [
      node('steps[0]', 'loop', [
        node('steps[0].steps[0]', 'task'),
        node('steps[0].steps[0]', 'task'),
      ]),
    ])
    const { nodes } = layoutTree(loop)
    expect(new Set(nodes.map((placed) => placed.id)).size).toBe(nodes.length)
    expect(new Set(nodes.map((placed) => `${placed.x},${placed.y}`)).size).toBe(nodes.length)
  })

  it('draws nothing before the run has a tree', () => {
    expect(layoutTree(undefined)).toEqual({ nodes: [], edges: [], width: 0, height: 0 })
  })
})

describe('budgetLeft', () => {
  it('takes what a node spent from its own limit, capped by what its parent has left', () => {
    const plan = {
      budget: { cost: 0.5 },
      steps: [
        { op: 'fanout', branches: [{ op: 'delegate', budget: { costUsd: 0.12 } }, { op: 'task' }] },
        { op: 'stop' },
      ],
    }
    const left = budgetLeft(tree, plan)
    expect(left.get('steps')).toBeCloseTo(0.35)
    expect(left.get('steps[0]')).toBeCloseTo(0.35)
    expect(left.get('steps[0].branches[0]')).toBeCloseTo(0.02)
    expect(left.get('steps[0].branches[1]')).toBeCloseTo(0.35)
  })

  it('gives no figure where no limit applies', () => {
    expect(budgetLeft(tree, { steps: [] }).size).toBe(0)
  })
})
