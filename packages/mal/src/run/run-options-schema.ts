import { ModelRef } from '@baton/core'
import { z } from 'zod'

const hasMethods =
  (...names: string[]) =>
  (value: unknown) =>
    typeof value === 'object' &&
    value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')

/** What `runPlan` and `resumeRun` accept; checked before anything runs. */
export const RunPlanOptionsSchema = z.object({
  inputs: z.record(z.string(), z.unknown()).optional(),
  registry: z.custom(
    hasMethods('ensureRegisteredAgent'),
    'must be a registry client (see createRegistryClient or createStaticRegistry)',
  ),
  host: z
    .custom(hasMethods('task', 'delegate'), 'must be an AgentHost (task and delegate)')
    .optional(),
  budget: z
    .custom(hasMethods('child', 'reserve'), 'must be a budget (see createBudget)')
    .optional(),
  signal: z.instanceof(AbortSignal, { message: 'must be an AbortSignal' }).optional(),
  onEvent: z.custom((value) => typeof value === 'function', 'must be a function').optional(),
  models: z.custom(hasMethods('languageModel'), 'must be a model registry').optional(),
  toolRegistry: z.custom(hasMethods('get', 'names'), 'must be a tool registry').optional(),
  conclave: z
    .strictObject({
      store: z
        .custom(hasMethods('read', 'write', 'delete', 'list', 'expire'), 'must be a conclave store')
        .optional(),
      space: z.string().min(1).optional(),
      retainMs: z.number().int().min(0).optional(),
    })
    .optional(),
  discovery: z
    .custom(
      (value) => typeof value === 'object' && value !== null,
      'must be a discovery (see createStaticDiscovery)',
    )
    .optional(),
  tools: z
    .record(z.string(), z.custom(hasMethods('execute'), 'must be a tool with execute'))
    .optional(),
  workspaceRoot: z.string().min(1).optional(),
  workspaceProviders: z
    .record(
      z.string().min(1),
      z.custom(hasMethods('create'), 'must be a workspace provider (with create)'),
    )
    .optional(),
  memory: z.custom(hasMethods('read', 'append'), 'must be a memory store').optional(),
  coordinatorWallet: z.string().min(1).optional(),
  model: ModelRef.optional(),
  runId: z.string().min(1).optional(),
  onCheckpoint: z.custom((value) => typeof value === 'function', 'must be a function').optional(),
  secret: z
    .union([z.string().min(16, 'must be at least 16 characters'), z.instanceof(Uint8Array)])
    .optional(),
  maxEvents: z.number().int().min(2).optional(),
  maxRunSteps: z.number().int().min(1).optional(),
  beforeStep: z.custom((value) => typeof value === 'function', 'must be a function').optional(),
  eventBuffer: z.number().int().min(1).optional(),
  stepDeltas: z.boolean().optional(),
  receiptSigner: z
    .custom(hasMethods('signTypedData'), 'must be an account that signs typed data (viem)')
    .optional(),
  requireReceipt: z.boolean().optional(),
  resumed: z
    .custom(hasMethods('claim'), 'must be a resume store (see createMemoryResumeStore)')
    .optional(),
  answer: z.unknown().optional(),
})
