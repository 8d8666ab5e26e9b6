import { Budget, ModelRef, parseWallet, TrustTier, type Wallet } from '@baton/core'
import { z } from 'zod'
import { ConclaveStepSchema } from './conclave-step'
import { SearchAgentsSchema, SearchModelsSchema, SearchToolsSchema } from './search-step-schema'
import type { DelegateStep, Isolation as IsolationType, Step, StepOp, TaskStep } from './step-types'

/** A name a step saves its value under (and that templates read). */
export const Name = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_-]*$/,
    'must be a name (letters, digits, "_" and "-", starting with a letter or "_")',
  )

// A literal wallet is checked (and checksummed) here; a `{{template}}` (say, a wallet given as
// an input) is checked against the registry when the step runs, and fails closed there.
const WalletField = z.string().transform((value, context): Wallet => {
  if (value.includes('{{')) return value as Wallet
  try {
    return parseWallet(value)
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message })
    return z.NEVER
  }
})

const Text = z.string().min(1, 'must not be empty')

// `task` and `delegate` name a deployed agent; a raw model id there would silently dissolve
// the agent into a bare model call, so it is refused with a pointer to `models_call`.
const refuseModel = (op: string) =>
  z
    .unknown()
    .optional()
    .superRefine((value, context) => {
      if (value === undefined) return
      context.addIssue({
        code: 'custom',
        message: `${op} addresses a registered agent by agentWallet and runs with that agent's card model; it does not take a model. Use a models_call step to call a model directly.`,
      })
    })

const Isolation = z.enum(['none', 'memory', 'workspace']) satisfies z.ZodType<IsolationType>

const TaskSchema = z
  .strictObject({
    op: z.literal('task'),
    saveAs: Name,
    agentWallet: WalletField,
    prompt: Text,
    tools: z.array(z.string().min(1)).optional(),
    persona: z.string().optional(),
    budget: Budget.optional(),
    isolation: Isolation.default('none'),
    workspace: z.enum(['browser', 'display']).optional(),
    minTrustTier: TrustTier.optional(),
    model: refuseModel('task'),
  })
  .transform(({ model: _model, ...step }): TaskStep => step)

const DelegateSchema = z
  .strictObject({
    op: z.literal('delegate'),
    saveAs: Name,
    agentWallet: WalletField,
    prompt: Text,
    budget: Budget.optional(),
    minTrustTier: TrustTier.optional(),
    model: refuseModel('delegate'),
  })
  .transform(({ model: _model, ...step }): DelegateStep => step)

const ModelsCallSchema = z.strictObject({
  op: z.literal('models_call'),
  saveAs: Name,
  model: ModelRef,
  prompt: Text,
  system: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  budget: Budget.optional(),
})

const Steps: z.ZodType<Step[]> = z.lazy(() => z.array(StepSchema))

const BranchSchema = z.strictObject({ id: Name, steps: Steps })

const FanoutSchema = z
  .strictObject({
    op: z.literal('fanout'),
    saveAs: Name,
    branches: z.array(BranchSchema).min(1, 'a fanout needs at least one branch'),
    gather: z.enum(['all', 'any-success', 'first']).default('all'),
    concurrency: z.number().int().min(1).optional(),
  })
  .superRefine((step, context) => {
    const seen = new Set<string>()
    step.branches.forEach((branch, index) => {
      if (seen.has(branch.id)) {
        context.addIssue({
          code: 'custom',
          path: ['branches', index, 'id'],
          message: `duplicate branch id "${branch.id}"`,
        })
      }
      seen.add(branch.id)
    })
  })

const IfSchema = z.strictObject({
  op: z.literal('if'),
  cond: Text,
  // biome-ignore lint/suspicious/noThenProperty: `then` is the MAL field name.
  then: Steps,
  else: Steps.optional(),
})

const LoopSchema = z.strictObject({
  op: z.literal('loop'),
  while: Text,
  do: Steps,
  maxIters: z
    .number({
      error: (issue) =>
        issue.input === undefined
          ? 'a loop needs maxIters (the most iterations it may run)'
          : 'must be a whole number',
    })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(10_000, 'must be at most 10000'),
})

const ToolSchema = z.strictObject({
  op: z.literal('tool'),
  saveAs: Name,
  toolName: Text,
  args: z.record(z.string(), z.unknown()).default({}),
  budget: Budget.optional(),
})

const ScratchSchema = z
  .strictObject({
    op: z.literal('scratch'),
    action: z.enum(['write', 'read', 'list', 'delete']),
    key: z.string().min(1).optional(),
    value: z.unknown().optional(),
    saveAs: Name.optional(),
  })
  .superRefine((step, context) => {
    if (step.action !== 'list' && step.key === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['key'],
        message: `scratch ${step.action} needs a key`,
      })
    }
    if (step.action === 'write' && step.value === undefined) {
      context.addIssue({ code: 'custom', path: ['value'], message: 'scratch write needs a value' })
    }
  })

const SynthesizeSchema = z.strictObject({
  op: z.literal('synthesize'),
  saveAs: Name,
  from: z.array(Name).min(1, 'name at least one value to synthesize from'),
  instruction: Text,
  model: ModelRef.optional(),
  budget: Budget.optional(),
})

const AskUserSchema = z.strictObject({ op: z.literal('ask_user'), saveAs: Name, question: Text })

const StopSchema = z
  .strictObject({ op: z.literal('stop'), output: z.unknown(), reason: z.string().optional() })
  .superRefine((step, context) => {
    if (step.output === undefined) {
      context.addIssue({ code: 'custom', path: ['output'], message: 'stop needs an output' })
    }
  })

/** The zod schema of one step (a discriminated union on `op`). */
export const StepSchema: z.ZodType<Step> = z.discriminatedUnion('op', [
  TaskSchema,
  DelegateSchema,
  ModelsCallSchema,
  FanoutSchema,
  IfSchema,
  LoopSchema,
  ToolSchema,
  ScratchSchema,
  SynthesizeSchema,
  AskUserSchema,
  StopSchema,
  SearchAgentsSchema,
  SearchToolsSchema,
  SearchModelsSchema,
  ConclaveStepSchema,
]) as z.ZodType<Step>

export const STEP_OPS = [
  'task',
  'delegate',
  'models_call',
  'fanout',
  'if',
  'loop',
  'tool',
  'scratch',
  'synthesize',
  'ask_user',
  'stop',
  'search_agents',
  'search_tools',
  'search_models',
  'conclave',
] as const satisfies readonly StepOp[]

// Every op of the Step union is listed above (a new op that is not fails to compile here),
// so messages that name the ops (an unknown op's) stay complete.
type UnlistedOp = Exclude<StepOp, (typeof STEP_OPS)[number]>
const everyOpListed: [UnlistedOp] extends [never] ? true : UnlistedOp = true
void everyOpListed
