import { z } from 'zod'
import { ToolCallFields, ToolCallStartFields, ToolResultFields } from './tool-call-run-event'

/** Usage in every dimension a budget counts. */
export const RunUsage = z.object({
  calls: z.number().nonnegative(),
  tokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
})
export type RunUsage = z.infer<typeof RunUsage>

export const RunStatus = z.enum(['done', 'stopped', 'failed', 'paused', 'cancelled'])
export type RunStatus = z.infer<typeof RunStatus>

export const RunErrorInfo = z.object({
  code: z.string(),
  message: z.string(),
  /** The path of the step that failed (`steps[2].branches[0].steps[1]`). */
  path: z.string().optional(),
})
export type RunErrorInfo = z.infer<typeof RunErrorInfo>

const Base = {
  runId: z.string(),
  /** Position of the event in its run (continues across a pause and resume). */
  sequence: z.number().int().nonnegative(),
  at: z.string(),
}
const StepBase = {
  ...Base,
  path: z.string(),
  op: z.string(),
  saveAs: z.string().optional(),
  /** The iteration of the innermost loop the step runs in (1-based). */
  iteration: z.number().int().positive().optional(),
}

/** Every event a run emits, in order: a discriminated union on `type`. */
export const RunEvent = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('run-start'),
    ...Base,
    plan: z.string().optional(),
    inputs: z.record(z.string(), z.unknown()),
    resumed: z.boolean(),
  }),
  z.object({ type: z.literal('step-start'), ...StepBase, wallet: z.string().optional() }),
  z.object({
    type: z.literal('step-finish'),
    ...StepBase,
    value: z.unknown(),
    usage: RunUsage,
    /** Who did the work: the agent's wallet, or the coordinator's for models and tools. */
    wallet: z.string(),
    durationMs: z.number().nonnegative(),
    /** Milliseconds from the step's start to the first text its model streamed (streamed steps). */
    firstTextMs: z.number().nonnegative().optional(),
  }),
  /**
   * Text a `task`, `delegate`, `models_call` or `synthesize` step's model streamed, coalesced
   * (at most one event per ~50 ms or a few hundred characters). Live only: it goes to
   * `onEvent` and `run.events` but never into `result.events`, a server's stored events or a
   * checkpoint, and it takes no number of its own (`sequence` is that of the event before it);
   * the step's whole text is in its `step-finish`.
   */
  z.object({
    type: z.literal('step-delta'),
    ...StepBase,
    /** Who is writing: the agent's wallet, or the coordinator's for a model step. */
    wallet: z.string(),
    text: z.string(),
  }),
  z.object({
    type: z.literal('step-error'),
    ...StepBase,
    code: z.string(),
    message: z.string(),
    usage: RunUsage,
    wallet: z.string().optional(),
  }),
  /**
   * A file a step left behind and the run kept (a `browser` or `display` task's screenshot),
   * saved in the run's file store before this event: `name` is its name in the run.
   */
  z.object({
    type: z.literal('step-file'),
    ...StepBase,
    /** The agent whose task made it. */
    wallet: z.string(),
    name: z.string(),
    /** Its path in the task's directory (`screenshots/screenshot-1.png`). */
    file: z.string(),
    mediaType: z.string(),
    bytes: z.number().int().nonnegative(),
  }),
  // An agent's tool calls, inside the `task` or `delegate` step that ran it (any depth below).
  z.object({
    type: z.literal('tool-call'),
    ...StepBase,
    ...ToolCallFields,
    ...ToolCallStartFields,
  }),
  z.object({ type: z.literal('tool-result'), ...StepBase, ...ToolCallFields, ...ToolResultFields }),
  z.object({
    type: z.literal('run-pause'),
    ...Base,
    path: z.string(),
    saveAs: z.string(),
    question: z.string(),
  }),
  z.object({
    type: z.literal('run-finish'),
    ...Base,
    status: RunStatus,
    output: z.unknown(),
    reason: z.string().optional(),
    usage: RunUsage,
    error: RunErrorInfo.optional(),
  }),
])
export type RunEvent = z.infer<typeof RunEvent>
export type RunEventType = RunEvent['type']
