import { Budget, type BudgetLimits } from '@baton/core'
import { z } from 'zod'
import { Name, StepSchema } from './step-schema'
import type { Step } from './step-types'

export const InputType = z.enum(['string', 'number', 'boolean', 'object', 'array', 'any'])
export type InputType = z.infer<typeof InputType>

/** An input: its type, optionally with a default (an input with a default may be left out). */
export type InputSpec = { type: InputType; default?: unknown; description?: string }

const InputSpecSchema = z
  .union([
    InputType.transform((type): InputSpec => ({ type })),
    z.strictObject({
      type: InputType.default('string'),
      default: z.unknown().optional(),
      description: z.string().optional(),
    }),
  ])
  .transform((spec): InputSpec => spec as InputSpec)

/** A validated MAL plan. */
export type Plan = {
  name?: string
  description?: string
  inputs: Record<string, InputSpec>
  budget?: BudgetLimits
  /** The run must end with a signed receipt (a runtime without a signing key refuses it). */
  requireReceipt?: boolean
  /** How deep delegation may go in the whole run: a `task` or `delegate` is depth 1, its sub-agents 2, ... */
  maxDepth?: number
  /** How many tool batches the whole run may make: a `tool` step is one, and so is each model step in which an agent calls tools. */
  maxToolBatches?: number
  steps: Step[]
}

/** The zod schema of a MAL plan: the single definition of the language's shape. */
export const PlanSchema: z.ZodType<Plan> = z.strictObject({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  inputs: z.record(Name, InputSpecSchema).default({}),
  budget: Budget.optional(),
  requireReceipt: z.boolean().optional(),
  maxDepth: z.number().int('must be a whole number').min(0, 'must be 0 or more').max(64).optional(),
  maxToolBatches: z.number().int('must be a whole number').min(0, 'must be 0 or more').optional(),
  steps: z.array(StepSchema).min(1, 'a plan needs at least one step'),
}) as z.ZodType<Plan>
