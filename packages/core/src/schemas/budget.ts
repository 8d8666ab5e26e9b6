import { z } from 'zod'
import type { Budget as RuntimeBudget } from '../budget/create-budget'

const Limit = z.number().finite().nonnegative()

/**
 * Budget limits. `cost` is accepted for `costUsd` and `seconds` for `maxWallMs`
 * (multiplied by 1000); a dimension left out is unlimited.
 */
export const Budget = z
  .object({
    calls: Limit.int().optional(),
    costUsd: Limit.optional(),
    cost: Limit.optional(),
    tokens: Limit.int().optional(),
    maxWallMs: Limit.optional(),
    seconds: Limit.optional(),
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
