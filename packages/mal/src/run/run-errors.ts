import { BatonError } from '@baton/core'

/** Inputs that do not match the plan's `inputs` (missing, unknown, or of the wrong type). */
export class PlanInputError extends BatonError {
  override name = 'PlanInputError'
  readonly issues: { path: string; message: string }[]
  constructor(issues: { path: string; message: string }[]) {
    super(
      'PLAN_INPUT_INVALID',
      `Invalid plan inputs: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
      { details: { issues } },
    )
    this.issues = issues
  }
}

/** A `result.state` that is not the state of a paused run. */
export class RunStateError extends BatonError {
  override name = 'RunStateError'
  constructor(reason: string) {
    super('RUN_STATE_INVALID', `Cannot resume the run: ${reason}.`)
  }
}

/** `onCheckpoint` failed: the run stops rather than go on with a step it could not record. */
export class CheckpointError extends BatonError {
  override name = 'CheckpointError'
  constructor(options: { index: number; cause: unknown }) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause)
    super(
      'CHECKPOINT_FAILED',
      `The checkpoint after steps[${options.index}] could not be saved: ${reason}`,
      { details: { index: options.index }, cause: options.cause },
    )
  }
}

/** A `tool` step named a tool that neither `tools` nor `toolRegistry` provides. */
export class ToolNotFoundError extends BatonError {
  override name = 'ToolNotFoundError'
  constructor(options: { toolName: string; available: string[] }) {
    super(
      'TOOL_NOT_FOUND',
      `No tool named "${options.toolName}" (available: ${options.available.join(', ') || 'none'}).`,
      { details: options },
    )
  }
}

/** A `tool` step's tool threw, or refused its arguments. */
export class ToolStepError extends BatonError {
  override name = 'ToolStepError'
  constructor(options: { toolName: string; reason: string; cause?: unknown }) {
    super('TOOL_FAILED', `Tool "${options.toolName}" failed: ${options.reason}`, {
      details: { toolName: options.toolName },
      cause: options.cause,
    })
  }
}

/** A `task` step's specialist ended without a result (failed, ran out of budget, asked a question). */
export class TaskFailedError extends BatonError {
  override name = 'TaskFailedError'
  constructor(options: { wallet: string; status: string; reason: string; cause?: unknown }) {
    super(
      'TASK_FAILED',
      `Task for agent ${options.wallet} ended ${options.status}: ${options.reason}`,
      {
        details: { wallet: options.wallet, status: options.status },
        cause: options.cause,
      },
    )
  }
}

/** Every branch of an `any-success` or `first` fanout failed. */
export class FanoutFailedError extends BatonError {
  override name = 'FanoutFailedError'
  constructor(options: {
    path: string
    failures: { id: string; code: string; message: string }[]
  }) {
    super(
      'FANOUT_FAILED',
      `Every branch of the fanout at ${options.path} failed: ${options.failures
        .map((failure) => `${failure.id}: ${failure.message}`)
        .join('; ')}`,
      { details: options },
    )
  }
}

/** A model call that the remaining budget cannot pay for even a one-token answer. */
export class ModelCallError extends BatonError {
  override name = 'ModelCallError'
  constructor(options: { model: string; reason: string; cause?: unknown }) {
    super('MODEL_CALL_FAILED', `Model ${options.model} failed: ${options.reason}`, {
      details: { model: options.model },
      cause: options.cause,
    })
  }
}

/** A run executed more steps than its cap (`maxRunSteps`) allows; the step at `path` did not start. */
export class StepLimitError extends BatonError {
  override name = 'StepLimitError'
  constructor(options: { maxSteps: number; path: string }) {
    super(
      'STEP_LIMIT_EXCEEDED',
      `The run executed more than ${options.maxSteps} steps (limit maxRunSteps); ${options.path} did not start.`,
      { details: { maxSteps: options.maxSteps, path: options.path } },
    )
  }
}

/** A `task` asks for a workspace kind whose tools the agent's card (or the step's `tools`) does not list. */
export class TaskWorkspaceToolsError extends BatonError {
  override name = 'TaskWorkspaceToolsError'
  constructor(options: {
    wallet: string
    workspace: string
    needs: readonly string[]
    listed: string[]
  }) {
    super(
      'TASK_WORKSPACE_TOOLS_MISSING',
      `A task with workspace "${options.workspace}" needs an agent whose tools include some of ${options.needs.join(', ')}; agent ${options.wallet} lists ${options.listed.join(', ') || 'none'}.`,
      { details: { ...options, needs: [...options.needs] } },
    )
  }
}
