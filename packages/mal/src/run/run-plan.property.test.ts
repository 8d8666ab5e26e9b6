import { createStaticRegistry } from '@baton/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { runPlan } from './run-plan'

type Shape =
  | { kind: 'call'; promptLength: number; answerLength: number }
  | {
      kind: 'fanout'
      branches: Shape[][]
      gather: 'all' | 'any-success' | 'first'
      concurrency: number | null
    }
  | { kind: 'loop'; maxIters: number; body: Shape[] }
  | { kind: 'if'; cond: boolean; then: Shape[]; else: Shape[] }

const { step } = fc.letrec<{ step: Shape }>((tie) => ({
  step: fc.oneof(
    { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
    fc.record({
      kind: fc.constant('call' as const),
      promptLength: fc.integer({ min: 1, max: 600 }),
      answerLength: fc.integer({ min: 0, max: 4000 }),
    }),
    fc.record({
      kind: fc.constant('fanout' as const),
      branches: fc.array(fc.array(tie('step'), { minLength: 1, maxLength: 2 }), {
        minLength: 1,
        maxLength: 3,
      }),
      gather: fc.constantFrom('all' as const, 'any-success' as const, 'first' as const),
      concurrency: fc.option(fc.integer({ min: 1, max: 3 })),
    }),
    fc.record({
      kind: fc.constant('loop' as const),
      maxIters: fc.integer({ min: 1, max: 4 }),
      body: fc.array(tie('step'), { minLength: 1, maxLength: 2 }),
    }),
    fc.record({
      kind: fc.constant('if' as const),
      cond: fc.boolean(),
      // biome-ignore lint/suspicious/noThenProperty: MAL if steps have a then field
      then: fc.array(tie('step'), { maxLength: 2 }),
      else: fc.array(tie('step'), { maxLength: 2 }),
    }),
  ),
}))

const limits = fc.record(
  {
    calls: fc.integer({ min: 0, max: 12 }),
    tokens: fc.integer({ min: 0, max: 6000 }),
    costUsd: fc.double({ min: 0, max: 0.002, noNaN: true }),
  },
  { requiredKeys: [] },
)

function toPlan(shapes: Shape[], budget: Record<string, number>) {
  let count = 0
  const name = () => `s${++count}`
  const convert = (shape: Shape): Record<string, unknown> => {
    switch (shape.kind) {
      case 'call':
        return {
          op: 'models_call',
          saveAs: name(),
          model: 'offline:default',
          prompt: `${'p'.repeat(shape.promptLength)}${shape.answerLength ? ` [[answer:${'a'.repeat(shape.answerLength)}]]` : ''}`,
        }
      case 'fanout':
        return {
          op: 'fanout',
          saveAs: name(),
          gather: shape.gather,
          ...(shape.concurrency ? { concurrency: shape.concurrency } : {}),
          branches: shape.branches.map((steps, index) => ({
            id: `b${index}`,
            steps: steps.map(convert),
          })),
        }
      case 'loop':
        return { op: 'loop', while: 'true', maxIters: shape.maxIters, do: shape.body.map(convert) }
      case 'if':
        return {
          op: 'if',
          cond: String(shape.cond),
          // biome-ignore lint/suspicious/noThenProperty: MAL if steps have a then field
          then: shape.then.map(convert),
          else: shape.else.map(convert),
        }
    }
  }
  return { budget, steps: shapes.map(convert) }
}

const registry = createStaticRegistry([])

describe('runPlan budgets (property)', () => {
  it('never spends more than the plan budget, whatever the plan', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 4 }),
        limits,
        async (shapes, budget) => {
          const result = await runPlan(toPlan(shapes, budget), { registry })
          expect(['done', 'failed']).toContain(result.status)
          if (budget.calls !== undefined)
            expect(result.usage.calls).toBeLessThanOrEqual(budget.calls)
          if (budget.tokens !== undefined)
            expect(result.usage.tokens).toBeLessThanOrEqual(budget.tokens)
          if (budget.costUsd !== undefined) {
            expect(result.usage.costUsd).toBeLessThanOrEqual(budget.costUsd + 1e-12)
          }
          // Every charge is attributed: the coordinator did all the work here.
          const attributed = result.usageByWallet.coordinator ?? { calls: 0, tokens: 0, costUsd: 0 }
          expect(attributed.calls).toBe(result.usage.calls)
          expect(attributed.tokens).toBe(result.usage.tokens)
          if (result.status === 'failed')
            expect(result.error?.code).toMatch(/^(BUDGET_EXCEEDED|FANOUT_FAILED)$/)
        },
      ),
      { numRuns: 60 },
    )
  })
})
