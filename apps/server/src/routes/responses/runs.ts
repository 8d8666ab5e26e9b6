import { RunReceipt, SwarmRole, SwarmStrategy, TrustTier } from '@baton/core'
import { z } from 'zod'

// What the runs, plans and swarms routes answer, as it is on the wire (dates are ISO strings).

/** Every status a stored run can have (the MAL statuses and the server's own). */
export const RunStatus = z.enum([
  'queued',
  'running',
  'paused',
  'done',
  'stopped',
  'failed',
  'cancelled',
  'interrupted',
])

export const RunUsage = z
  .object({
    calls: z.number(),
    tokens: z.number(),
    costUsd: z.number(),
  })
  .meta({ id: 'RunUsage', description: 'What was spent: model and tool calls, tokens, US dollars' })

const summaryFields = {
  id: z.string(),
  kind: z.enum(['plan', 'swarm']),
  swarmId: z.string().nullable().describe('the swarm a swarm run is of; null for a plan run'),
  name: z.string().nullable().describe("the plan's name; null when it has none"),
  status: RunStatus,
  usage: RunUsage,
  executedBy: z
    .string()
    .nullable()
    .describe('the process (BATON_WORKER_NAME) that executes or executed the run'),
  owner: z.string().describe('the principal that started it: admin, key:<id> or anonymous'),
  traceId: z
    .string()
    .nullable()
    .describe('its OpenTelemetry trace id; null when the server records no traces'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
}

export const RunSummary = z
  .object(summaryFields)
  .meta({ id: 'RunSummary', description: 'What the list of runs shows of a run' })

export const RunList = z.object({
  runs: z.array(RunSummary),
  total: z.number().int().describe('how many runs match, over all pages'),
  limit: z.number().int(),
  offset: z.number().int(),
})

/** The answer of a request that starts, answers or resumes a run, which goes on in the background. */
export const RunAccepted = z
  .object({ id: z.string().describe("the run's id") })
  .meta({ id: 'RunAccepted', description: 'A run accepted; follow it at /api/v1/runs/{id}' })

export const RunError = z
  .object({
    code: z.string(),
    message: z.string(),
    path: z.string().optional().describe('the path of the step that failed, when one did'),
  })
  .meta({ id: 'RunError', description: 'Why a run failed or was cancelled' })

export const RunStep = z
  .object({
    path: z.string().describe("the step's place in the plan (steps[2].branches[0].steps[1])"),
    op: z.string(),
    saveAs: z.string().nullable(),
    value: z.unknown().describe('what the step gave'),
    usage: RunUsage,
    wallet: z
      .string()
      .nullable()
      .describe("who did the work: the agent's wallet, or the coordinator's"),
    durationMs: z.number(),
    sequence: z.number().int().describe('the position of its event in the run'),
    finishedAt: z.iso.datetime(),
  })
  .meta({ id: 'RunStep', description: 'A finished step of a run' })

export const RunFile = z
  .object({
    name: z.string().describe('its name in the run: fetch it at /api/v1/runs/{id}/files/{name}'),
    file: z.string().describe("its path in the task's directory"),
    mediaType: z.string(),
    bytes: z.number().int(),
  })
  .meta({ id: 'RunFile', description: 'A file a step left behind (a screenshot)' })

export const RunTreeNode = z
  .object({
    path: z.string(),
    op: z.string().describe('the step\'s op; "run" for the root'),
    wallet: z.string().nullable(),
    status: z.enum(['running', 'done', 'failed']),
    usage: RunUsage.nullable().describe('null while the step runs'),
    files: z.array(RunFile),
    get children() {
      return z.array(RunTreeNode)
    },
  })
  .meta({
    id: 'RunTreeNode',
    description: 'A step of the delegation tree, holding the steps inside it',
  })

export const Run = z
  .object({
    ...summaryFields,
    traceUrl: z
      .string()
      .nullable()
      .describe("where the run's trace is shown (BATON_TRACE_URL_TEMPLATE), when both are known"),
    plan: z
      .record(z.string(), z.unknown())
      .describe('the validated MAL plan (the swarm, for a swarm run)'),
    inputs: z.record(z.string(), z.unknown()),
    output: z.unknown().describe("the run's output; null until it has one"),
    error: RunError.nullable(),
    question: z.string().nullable().describe('what a paused run asks (answer it at /answer)'),
    usageByWallet: z.record(z.string(), RunUsage),
    steps: z.array(RunStep),
    tree: RunTreeNode,
  })
  .meta({ id: 'Run', description: 'A run: its status, output, steps, usage and tree' })

export const Receipt = RunReceipt.meta({
  id: 'Receipt',
  description: 'The signed receipt of a finished run (verify it with verifyRunReceipt)',
})

export const Plan = z
  .object({
    id: z.string(),
    name: z.string(),
    source: z.string().describe('its YAML or JSON, as written'),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Plan', description: 'A saved MAL plan' })

export const PlanList = z.object({ plans: z.array(Plan) })

export const PlanValidationIssue = z
  .object({
    message: z.string(),
    code: z.string(),
    path: z.string(),
    line: z.number().int().nullable().describe('in the plan text, when it was text'),
    column: z.number().int().nullable(),
  })
  .meta({ id: 'PlanValidationIssue', description: 'What is wrong with a plan, and where' })

export const PlanValidation = z
  .discriminatedUnion('ok', [
    z.object({
      ok: z.literal(true),
      plan: z.object({
        name: z.string().nullable(),
        steps: z.number().int().describe('how many top-level steps it has'),
      }),
    }),
    z.object({ ok: z.literal(false), issues: z.array(PlanValidationIssue) }),
  ])
  .meta({ id: 'PlanValidation', description: 'A plan checked without running it' })
export type PlanValidation = z.infer<typeof PlanValidation>

// The swarm as stored (AgentSwarm's output, its defaults filled in): AgentSwarm itself is an
// input schema, with defaults and refinements.
export const SwarmMember = z
  .object({
    agentId: z.string(),
    role: SwarmRole,
    weight: z.number(),
    canInitiate: z.boolean().optional(),
    priority: z.number().int().optional().describe('higher goes first and wins ties'),
    canTerminate: z.boolean().optional().describe('may end a collaborative run early'),
  })
  .meta({ id: 'SwarmMember', description: 'An agent of a swarm and its role' })

export const Swarm = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().optional(),
    strategy: SwarmStrategy,
    agents: z.array(SwarmMember),
    consensusThreshold: z.number(),
    maxRounds: z.number().int(),
    sharedContext: z.boolean().optional().describe("members see the run's conclave"),
    communication: z.enum(['broadcast', 'direct', 'shared-memory']).optional(),
    minTrustTier: TrustTier.optional().describe("every member's agent is trusted at least this"),
  })
  .meta({ id: 'Swarm', description: 'A group of agents that work one task together' })

export const SwarmAnswer = z.object({ swarm: Swarm })

export const SwarmList = z.object({ swarms: z.array(Swarm) })

export const SwarmDeleted = z.object({ deleted: z.string().describe("the deleted swarm's id") })

export const SwarmRunStarted = z
  .object({
    run: z.object({ id: z.string() }),
    runId: z.string().describe('the same id as run.id'),
  })
  .meta({
    id: 'SwarmRunStarted',
    description: 'A swarm run accepted; it goes on in the background',
  })
