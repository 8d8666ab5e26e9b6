export { type CallModelOptions, type CallModelResult, callModel } from './call-model'
export { checkTaskWorkspaceTools } from './check-task-workspace-tools'
export { resolveInputs } from './resolve-inputs'
export { resumeRun } from './resume-run'
export { createMemoryResumeStore, type ResumeStore } from './resume-store'
export {
  CheckpointError,
  FanoutFailedError,
  ModelCallError,
  PlanInputError,
  RunStateError,
  StepLimitError,
  TaskFailedError,
  TaskWorkspaceToolsError,
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
export type { RunEventStream } from './run-event-channel'
export { keepFiles, type RunFile, type RunFileStore, runFileName } from './run-files'
export type { RunHandle } from './run-handle'
export type { PlanTool, ResumeRunOptions, RunPlanOptions, RunResult } from './run-options'
export { runPlan } from './run-plan'
export { RunCursor, RunState } from './run-state'
export { isSealedBy, type RunSecret, sealState } from './seal-state'
export { DELTA_INTERVAL_MS, DELTA_MAX_CHARACTERS, StepTextCoalescer } from './step-text-coalescer'
export * from './tool-batches'
