export { type CallModelOptions, type CallModelResult, callModel } from './call-model'
export { resolveInputs } from './resolve-inputs'
export { resumeRun } from './resume-run'
export {
  FanoutFailedError,
  ModelCallError,
  PlanInputError,
  RunStateError,
  TaskFailedError,
  ToolNotFoundError,
  ToolStepError,
} from './run-errors'
export {
  RunErrorInfo,
  RunEvent,
  type RunEventType,
  RunStatus,
  RunUsage,
} from './run-event'
export type { PlanTool, RunPlanOptions, RunResult } from './run-options'
export { runPlan } from './run-plan'
export { RunCursor, RunState } from './run-state'
