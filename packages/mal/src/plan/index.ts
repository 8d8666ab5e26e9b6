export type { ConclaveAction, ConclaveStep } from './conclave-step'
export { type InputSpec, InputType, type Plan, PlanSchema } from './plan-schema'
export { Name, STEP_OPS, StepSchema } from './step-schema'
export type {
  AskUserStep,
  DelegateStep,
  FanoutBranch,
  FanoutStep,
  Gather,
  IfStep,
  Isolation,
  LoopStep,
  ModelsCallStep,
  ScratchAction,
  ScratchStep,
  SearchAgentsStep,
  SearchModelsStep,
  SearchStep,
  SearchToolsStep,
  Step,
  StepOp,
  StopStep,
  SynthesizeStep,
  TaskStep,
  TaskWorkspaceKind,
  ToolStep,
} from './step-types'
