import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BatonError } from '../errors/baton-error'
import type { BudgetLimits } from '../schemas/budget'
import { type Budget, createBudget, type Spend } from './create-budget'

const DIMENSIONS = ['calls', 'tokens', 'costUsd'] as const
const EPSILON = 1e-9

/** Costs in whole cents keep the expected sums exact enough to compare. */
const usage = fc.record({
  calls: fc.integer({ min: 0, max: 2 }),
  tokens: fc.integer({ min: 0, max: 300 }),
  costUsd: fc.integer({ min: 0, max: 20 }).map((cents) => cents / 100),
})

const rootLimits = fc.record(
  {
    calls: fc.integer({ min: 2, max: 20 }),
    tokens: fc.integer({ min: 200, max: 3000 }),
    costUsd: fc.integer({ min: 20, max: 200 }).map((cents) => cents / 100),
  },
  { requiredKeys: [] },
)

/**
 * Node i > 0 hangs under an earlier node; its limits are shares of what that node has left,
 * or (left out) all of it, so siblings together can ask for more than their parent has.
 */
const tree = fc.array(
  fc.record({
    parentPick: fc.nat(),
    share: fc.record(
      {
        calls: fc.double({ min: 0.3, max: 1, noNaN: true }),
        tokens: fc.double({ min: 0.3, max: 1, noNaN: true }),
        costUsd: fc.double({ min: 0.3, max: 1, noNaN: true }),
      },
      { requiredKeys: [] },
    ),
  }),
  { minLength: 1, maxLength: 8 },
)

const operation = fc.record({
  nodePick: fc.nat(),
  kind: fc.constantFrom('charge', 'reserve-settle', 'reserve-release'),
  amount: usage,
  /** What a settled call really used, as a share of its estimate (never more). */
  actualShare: fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true })),
})

type Model = { budget: Budget; parent: number | undefined; expected: Spend }

type Shape = { parentPick: number; share: Partial<Record<(typeof DIMENSIONS)[number], number>> }[]

function buildTree(limits: BudgetLimits, shape: Shape): Model[] {
  const nodes: Model[] = [
    {
      budget: createBudget(limits),
      parent: undefined,
      expected: { calls: 0, tokens: 0, costUsd: 0 },
    },
  ]
  for (const { parentPick, share } of shape) {
    const parent = parentPick % nodes.length
    const left = nodes[parent]!.budget.remaining()
    const childLimits: BudgetLimits = {}
    for (const key of DIMENSIONS) {
      const fraction = share[key]
      if (fraction === undefined || !Number.isFinite(left[key])) continue
      childLimits[key] = key === 'costUsd' ? left[key] * fraction : Math.floor(left[key] * fraction)
    }
    nodes.push({
      budget: nodes[parent]!.budget.child(childLimits),
      parent,
      expected: { calls: 0, tokens: 0, costUsd: 0 },
    })
  }
  return nodes
}

function chainOf(nodes: Model[], index: number): Model[] {
  const chain: Model[] = []
  for (let at: number | undefined = index; at !== undefined; at = nodes[at]!.parent) {
    chain.push(nodes[at]!)
  }
  return chain
}

function assertNoneOverLimit(nodes: Model[]): void {
  for (const { budget } of nodes) {
    const spent = budget.spent()
    for (const key of DIMENSIONS) {
      const limit = budget.limits[key]
      if (limit !== undefined) expect(spent[key]).toBeLessThanOrEqual(limit + EPSILON)
    }
  }
}

function expectRefusal(error: unknown): void {
  // Refusals are budget errors (exceeded, or the budget was already aborted); nothing else.
  if (!BatonError.isInstance(error) || error.code !== 'BUDGET_EXCEEDED') throw error
}

function snapshot(chain: Model[]): Spend[] {
  return chain.map(({ budget }) => {
    const { calls, tokens, costUsd } = budget.spent()
    return { calls, tokens, costUsd }
  })
}

describe('createBudget (property)', () => {
  it('never lets interleaved children overspend an ancestor, nor records a refused charge', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        rootLimits,
        tree,
        fc.array(operation, { minLength: 4, maxLength: 40, size: 'medium' }),
        async (scheduler, limits, shape, operations) => {
          const nodes = buildTree(limits, shape)

          const run = async (op: (typeof operations)[number]) => {
            const index = op.nodePick % nodes.length
            const chain = chainOf(nodes, index)
            const { budget } = nodes[index]!
            await scheduler.schedule(Promise.resolve(), `${op.kind} on node ${index}`)
            if (op.kind === 'charge') {
              const before = snapshot(chain)
              try {
                budget.charge(op.amount)
              } catch (error) {
                expectRefusal(error)
                expect(snapshot(chain)).toEqual(before)
                return
              }
              for (const node of chain) addTo(node.expected, op.amount)
              assertNoneOverLimit(nodes)
              return
            }
            let reservation: ReturnType<Budget['reserve']>
            try {
              reservation = budget.reserve(op.amount)
            } catch (error) {
              expectRefusal(error)
              return
            }
            // The model call is in flight: other children's charges run in between.
            await scheduler.schedule(Promise.resolve(), `call returns on node ${index}`)
            if (op.kind === 'reserve-release') {
              reservation.release()
              return
            }
            const actual = {
              calls: Math.floor(op.amount.calls * op.actualShare),
              tokens: Math.floor(op.amount.tokens * op.actualShare),
              costUsd: Math.floor(op.amount.costUsd * 100 * op.actualShare) / 100,
            }
            reservation.settle(actual)
            for (const node of chain) addTo(node.expected, actual)
            assertNoneOverLimit(nodes)
          }

          const tasks = operations.map(run)
          await scheduler.waitAll()
          await Promise.all(tasks)

          assertNoneOverLimit(nodes)
          for (const { budget, expected } of nodes) {
            const spent = budget.spent()
            expect(spent.calls).toBe(expected.calls)
            expect(spent.tokens).toBe(expected.tokens)
            expect(spent.costUsd).toBeCloseTo(expected.costUsd, 9)
            // Every reservation was settled or released: nothing is held any more.
            const left = budget.remaining()
            for (const key of DIMENSIONS) {
              const limit = budget.limits[key]
              if (limit !== undefined) {
                expect(left[key]).toBeCloseTo(Math.max(0, minLeftInChain(nodes, budget, key)), 9)
              }
            }
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})

function addTo(target: Spend, amount: Spend): void {
  for (const key of DIMENSIONS) target[key] += amount[key]
}

function minLeftInChain(nodes: Model[], budget: Budget, key: (typeof DIMENSIONS)[number]): number {
  let least = Number.POSITIVE_INFINITY
  for (let node: Budget | undefined = budget; node; node = node.parent) {
    const limit = node.limits[key]
    if (limit === undefined) continue
    const model = nodes.find((candidate) => candidate.budget === node)!
    least = Math.min(least, limit - model.expected[key])
  }
  return least
}
