import { z } from 'zod'
import type { Budget as RuntimeBudget } from '../budget/create-budget'
import { MAX_USD } from '../money/usd-units'

const Limit = z.number().finite().nonnegative()
// A safe integer (zod's int), so counts add up exactly.
const Count = Limit.int()
const Money = Limit.max(MAX_USD, `must be at most ${MAX_USD} USD`)
// Any longer and the deadline (start + limit) is no longer an exact number of milliseconds.
const MAX_WALL_MS = 2 ** 52
const WallMs = Limit.max(MAX_WALL_MS, `must be at most ${MAX_WALL_MS} ms`)
const Seconds = Limit.max(MAX_WALL_MS / 1000, `must be at most ${MAX_WALL_MS / 1000} seconds`)

/**
 * Budget limits. `cost` is accepted for `costUsd` and `seconds` for `maxWallMs`
 * (multiplied by 1000); a dimension left out is unlimited.
 */
export const Budget = z
  .object({
    calls: Count.optional(),
    costUsd: Money.optional(),
    cost: Money.optional(),
    tokens: Count.optional(),
    maxWallMs: WallMs.optional(),
    seconds: Seconds.optional(),
  })
  .strict()
  .superRefine((value, context) => {
    if (value.cost !== undefined && value.costUsd !== undefined && value.cost !== value.costUsd) {
      context.addIssue({
        code: 'custom',
        path: ['cost'],
        message: 'give either cost or costUsd, not both',
      })
    }
    if (
      value.seconds !== undefined &&
      value.maxWallMs !== undefined &&
      value.seconds * 1000 !== value.maxWallMs
    ) {
      context.addIssue({
        code: 'custom',
        path: ['seconds'],
        message: 'give either seconds or maxWallMs, not both',
      })
    }
  })
  .transform(({ calls, costUsd, cost, tokens, maxWallMs, seconds }) => {
    const limits: BudgetLimits = {}
    if (calls !== undefined) limits.calls = calls
    if ((costUsd ?? cost) !== undefined) limits.costUsd = (costUsd ?? cost)!
    if (tokens !== undefined) limits.tokens = tokens
    if ((maxWallMs ?? (seconds === undefined ? undefined : seconds * 1000)) !== undefined) {
      limits.maxWallMs = maxWallMs ?? seconds! * 1000
    }
    return limits
  })

/** Normalized budget limits. */
export type BudgetLimits = { calls?: number; costUsd?: number; tokens?: number; maxWallMs?: number }
export type BudgetInput = z.input<typeof Budget>

/** What one or more model calls used. */
export const Usage = z.object({
  calls: z.number().int().nonnegative().default(0),
  tokens: z.number().int().nonnegative().default(0),
  inputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
  costUsd: z.number().nonnegative().default(0),
})
export type Usage = z.output<typeof Usage>
export type UsageInput = z.input<typeof Usage>

/**
 * A live budget (see `createBudget`). The `Budget` value is the zod schema of its limits;
 * the `Budget` type is the runtime budget.
 */
export interface Budget extends RuntimeBudget {}
