import { z } from 'zod'
import { RunUsage } from './run-event'

/** Where a paused run stands: the step index in each block, down to the `ask_user`. */
export type RunCursor = {
  index: number
  branch?: 'then' | 'else'
  iteration?: number
  inner?: RunCursor
}

export const RunCursor: z.ZodType<RunCursor> = z.lazy(() =>
  z.strictObject({
    index: z.number().int().nonnegative(),
    branch: z.enum(['then', 'else']).optional(),
    iteration: z.number().int().positive().optional(),
    inner: RunCursor.optional(),
  }),
)

/**
 * The serializable state of a run that can be continued with `resumeRun`: JSON all the way
 * down, so it can be stored and resumed by another process. A paused run's state
 * (`result.state`) has `pending` (the `ask_user` waiting for its answer); a checkpoint
 * (`onCheckpoint`) has none and its cursor is the next top-level step.
 */
export const RunState = z.strictObject({
  version: z.literal(1),
  runId: z.string().min(1),
  /** Names this state: a state is resumed at most once (see `resumeRun`'s `resumed` store). */
  stateId: z.string().min(1).optional(),
  /** The plan as validated (it is validated again on resume). */
  plan: z.record(z.string(), z.unknown()),
  inputs: z.record(z.string(), z.unknown()),
  values: z.record(z.string(), z.unknown()),
  scratch: z.record(z.string(), z.unknown()),
  cursor: RunCursor,
  pending: z
    .strictObject({ path: z.string(), saveAs: z.string(), question: z.string() })
    .optional(),
  usage: RunUsage,
  usageByWallet: z.record(z.string(), RunUsage),
  /** Wall time the run used before it paused (waiting for the answer does not count). */
  wallMs: z.number().nonnegative(),
  sequence: z.number().int().nonnegative(),
  /** Steps the run executed before this state (they count against its `maxRunSteps`). */
  stepsRun: z.number().int().nonnegative().optional(),
  /** HMAC-SHA256 of the rest of the state, when the run was given a `secret`. */
  seal: z.string().optional(),
})
export type RunState = z.infer<typeof RunState>
