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
 * The serializable state of a paused run (`result.state`): JSON all the way down, so it can
 * be stored and resumed by another process with `resumeRun`.
 */
export const RunState = z.strictObject({
  version: z.literal(1),
  runId: z.string(),
  /** The plan as validated (it is validated again on resume). */
  plan: z.record(z.string(), z.unknown()),
  inputs: z.record(z.string(), z.unknown()),
  values: z.record(z.string(), z.unknown()),
  scratch: z.record(z.string(), z.unknown()),
  cursor: RunCursor,
  pending: z.strictObject({ path: z.string(), saveAs: z.string(), question: z.string() }),
  usage: RunUsage,
  usageByWallet: z.record(z.string(), RunUsage),
  /** Wall time the run used before it paused (waiting for the answer does not count). */
  wallMs: z.number().nonnegative(),
  sequence: z.number().int().nonnegative(),
})
export type RunState = z.infer<typeof RunState>
