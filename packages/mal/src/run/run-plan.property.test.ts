import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createStaticRegistry, defaultPriceTable, priceUsage } from '@baton/core'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentRecord, analystWallet } from '../__fixtures__/agents'
import { offlineModels } from '../__fixtures__/offline-models'
import { runPlan } from './run-plan'

type Shape =
  | { kind: 'call'; promptLength: number; answerLength: number }
  | {
      kind: 'delegate' | 'task'
      promptLength: number
      answerLength: number
      isolation: 'none' | 'memory' | 'workspace'
    }
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
    // Agents spend through core's runAgent (and task through a supervisor), not models_call.
    fc.record({
      kind: fc.constantFrom('delegate' as const, 'task' as const),
      promptLength: fc.integer({ min: 1, max: 600 }),
      answerLength: fc.integer({ min: 0, max: 4000 }),
      isolation: fc.constantFrom('none' as const, 'memory' as const, 'workspace' as const),
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

// Unbiased, so most runs get far enough to spend (fast-check otherwise favours 0).
const limits = fc.record(
  {
    calls: fc.noBias(fc.integer({ min: 0, max: 12 })),
    tokens: fc.noBias(fc.integer({ min: 0, max: 12_000 })),
    // Whole tenths of a cent-hundredth: a double would mostly be a denormal near 0.
    costUsd: fc.noBias(fc.integer({ min: 0, max: 300 })).map((units) => units / 100_000),
  },
  { requiredKeys: [] },
)

function toPlan(shapes: Shape[], budget: Record<string, number>) {
  let count = 0
  const name = () => `s${++count}`
  const prompt = (shape: { promptLength: number; answerLength: number }) =>
    `${'p'.repeat(shape.promptLength)}${shape.answerLength ? ` [[answer:${'a'.repeat(shape.answerLength)}]]` : ''}`
  const convert = (shape: Shape): Record<string, unknown> => {
    switch (shape.kind) {
      case 'call':
        return {
          op: 'models_call',
          saveAs: name(),
          model: 'offline:default',
          prompt: prompt(shape),
        }
      case 'delegate':
        return { op: 'delegate', saveAs: name(), agentWallet: analystWallet, prompt: prompt(shape) }
      case 'task':
        return {
          op: 'task',
          saveAs: name(),
          agentWallet: analystWallet,
          prompt: prompt(shape),
          isolation: shape.isolation,
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

const registry = createStaticRegistry([agentRecord()])
let workspaceRoot: string
beforeAll(async () => {
  workspaceRoot = await mkdtemp(path.join(tmpdir(), 'mal-property-'))
})
afterAll(() => rm(workspaceRoot, { recursive: true, force: true }))

const none = { calls: 0, tokens: 0, costUsd: 0 }

// What the model really did, counted at the model, not by the budgets under test: a step
// that escaped its budget would still show here.
function meteredModels() {
  const spent = { ...none }
  const models = offlineModels({
    onAnswer: ({ modelId, result }) => {
      const inputTokens = result.usage.inputTokens.total ?? 0
      const outputTokens = result.usage.outputTokens.total ?? 0
      spent.calls += 1
      spent.tokens += inputTokens + outputTokens
      spent.costUsd += priceUsage(
        `offline:${modelId}`,
        { inputTokens, outputTokens },
        defaultPriceTable,
      )
    },
  })
  return { models, spent }
}

describe('runPlan budgets (property)', () => {
  it('never spends more than the plan budget, whatever the plan', {
    timeout: 300_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 4 }),
        limits,
        async (shapes, budget) => {
          const { models, spent } = meteredModels()
          const result = await runPlan(toPlan(shapes, budget), { registry, workspaceRoot, models })
          expect(['done', 'failed']).toContain(result.status)
          // Both what the run charged and what the model really did stay within the budget.
          for (const usage of [result.usage, spent]) {
            if (budget.calls !== undefined) expect(usage.calls).toBeLessThanOrEqual(budget.calls)
            if (budget.tokens !== undefined) expect(usage.tokens).toBeLessThanOrEqual(budget.tokens)
            if (budget.costUsd !== undefined)
              expect(usage.costUsd).toBeLessThanOrEqual(budget.costUsd + 1e-12)
          }
          // Every call the model answered was charged to the run, cancelled branches' too.
          expect(result.usage.calls).toBe(spent.calls)
          // Every charge is attributed, to the coordinator (models_call) or the agent.
          const coordinator = result.usageByWallet.coordinator ?? none
          const agent = result.usageByWallet[analystWallet] ?? none
          expect(Object.keys(result.usageByWallet).sort()).toEqual(
            Object.keys(result.usageByWallet)
              .filter((wallet) => wallet === 'coordinator' || wallet === analystWallet)
              .sort(),
          )
          expect(coordinator.calls + agent.calls).toBe(result.usage.calls)
          expect(coordinator.tokens + agent.tokens).toBe(result.usage.tokens)
          if (result.status === 'failed')
            expect(result.error?.code).toMatch(/^(BUDGET_EXCEEDED|FANOUT_FAILED)$/)
        },
      ),
      { numRuns: 80 },
    )
  })

  // Liveness: a plan given exactly what it needs (measured on an unlimited run) finishes.
  // Every charge path (models_call, delegate) reserves a bounded answer and waits for its
  // siblings' reservations, so concurrent branches share the budget instead of starving.
  it('finishes a plan whose budget is exactly what it spends', { timeout: 300_000 }, async () => {
    const leaf = fc.oneof(
      fc.record({
        kind: fc.constant('call' as const),
        promptLength: fc.integer({ min: 1, max: 600 }),
        answerLength: fc.integer({ min: 0, max: 3000 }),
      }),
      fc.record({
        kind: fc.constant('delegate' as const),
        promptLength: fc.integer({ min: 1, max: 600 }),
        answerLength: fc.integer({ min: 0, max: 3000 }),
        isolation: fc.constant('none' as const),
      }),
    )
    const inBranch = fc.oneof(
      leaf,
      fc.record({
        kind: fc.constant('loop' as const),
        maxIters: fc.integer({ min: 1, max: 3 }),
        body: fc.array(leaf, { minLength: 1, maxLength: 2 }),
      }),
    )
    // Fanouts are not nested here: core gives a child budget at most what its parent has left
    // when it is made, so a fanout made inside a branch while a sibling holds a reservation
    // is capped below what it needs (a core budget matter, reported).
    const fitting: fc.Arbitrary<Shape> = fc.oneof(
      inBranch,
      fc.record({
        kind: fc.constant('fanout' as const),
        branches: fc.array(fc.array(inBranch, { minLength: 1, maxLength: 2 }), {
          minLength: 1,
          maxLength: 3,
        }),
        gather: fc.constant('all' as const),
        concurrency: fc.option(fc.integer({ min: 1, max: 3 })),
      }),
    )
    const dimensions = fc.subarray(['calls', 'tokens', 'costUsd'] as const, { minLength: 1 })
    await fc.assert(
      fc.asyncProperty(
        fc.array(fitting, { minLength: 1, maxLength: 4 }),
        dimensions,
        async (shapes, limited) => {
          const free = await runPlan(toPlan(shapes, {}), { registry, workspaceRoot })
          expect(free.status).toBe('done')
          const budget: Record<string, number> = {}
          for (const key of limited) budget[key] = free.usage[key]
          const result = await runPlan(toPlan(shapes, budget), { registry, workspaceRoot })
          expect(result.error).toBeUndefined()
          expect(result.status).toBe('done')
        },
      ),
      { numRuns: 40 },
    )
  })
})
