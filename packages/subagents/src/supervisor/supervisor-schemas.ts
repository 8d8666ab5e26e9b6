import type { Agent, Budget } from '@baton/core'
import { ModelRef } from '@baton/core'
import { z } from 'zod'
import { AgentAdapterSchema } from '../adapters/types'
import type { SubagentRunner } from '../runner/types'
import type { Workspace, WorkspaceProvider } from '../workspace/types'

export const DelegateOptionsSchema = z
  .object({
    workspace: z.string().min(1).default('new'),
    budget: z.record(z.string(), z.unknown()).optional(),
    model: ModelRef.optional(),
    agent: z.string().min(1).optional(),
    multiTurn: z.boolean().default(false),
  })
  .strict()
  .refine((options) => !(options.model && options.agent), {
    message: 'give either a model or an external agent, not both',
    path: ['agent'],
  })

export const SupervisorOptionsSchema = z.object({
  agent: z.custom<Agent>(
    (value) => typeof (value as Agent | undefined)?.model === 'string',
    'must be an agent (with a model)',
  ),
  workspace: z.union([
    z.object({ kind: z.literal('directory'), root: z.string().min(1) }),
    z.custom<Workspace>(
      (value) => typeof (value as Workspace | undefined)?.lend === 'function',
      'must be { kind: "directory", root } or a Workspace',
    ),
  ]),
  budget: z.custom<Budget>(
    (value) => typeof (value as Budget | undefined)?.child === 'function',
    'must be a budget (see createBudget)',
  ),
  runner: z
    .custom<SubagentRunner>(
      (value) => typeof (value as SubagentRunner | undefined)?.run === 'function',
      'must be { run(turn) }',
    )
    .optional(),
  adapters: z
    .union([z.array(z.string().min(1)), z.record(z.string(), AgentAdapterSchema)])
    .optional(),
  workspaceProviders: z
    .record(
      z.string().min(1),
      z.custom<WorkspaceProvider>(
        (value) => typeof (value as WorkspaceProvider | undefined)?.create === 'function',
        'must be { create(options), unavailableReason?() }',
      ),
    )
    .optional(),
  maxDepth: z.number().int().min(0).default(3),
})

export const WaitOptionsSchema = z.object({ timeoutMs: z.number().nonnegative().optional() })
