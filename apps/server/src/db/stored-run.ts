import type { Database, StoredUsage } from './database'

export type RunStatus =
  | 'queued'
  | 'running'
  | 'paused'
  | 'done'
  | 'stopped'
  | 'failed'
  | 'cancelled'
  | 'interrupted'

/** Why a run failed or was cancelled (`path`: the step that failed, when one did). */
export type RunError = { code: string; message: string; path?: string }

/** Statuses a run never leaves. */
export const finalStatuses: readonly RunStatus[] = ['done', 'stopped', 'failed', 'cancelled']

export type StoredRun = {
  id: string
  kind: 'plan' | 'swarm'
  swarmId: string | null
  plan: Record<string, unknown>
  inputs: Record<string, unknown>
  budget: Record<string, unknown> | null
  status: RunStatus
  output: unknown
  error: RunError | null
  usage: StoredUsage
  usageByWallet: Record<string, StoredUsage>
  state: Record<string, unknown> | null
  question: string | null
  /** The process (`BATON_WORKER_NAME`) that executes or executed the run. */
  executedBy: string | null
  /** How many times an executor took the run (see `claim`); 0 while it waits for its first. */
  attempt: number
  /** The principal that started it (`admin`, `key:<id>`, `anonymous`). */
  owner: string
  /** Its OpenTelemetry trace id; null when the server records no traces. */
  traceId: string | null
  createdAt: string
  updatedAt: string
}

export type StoredStep = {
  path: string
  op: string
  saveAs: string | null
  value: unknown
  usage: StoredUsage
  wallet: string | null
  durationMs: number
  sequence: number
  finishedAt: string
}

export type StoredEvent = { sequence: number; type: string; event: Record<string, unknown> }

export type RunRow = Database['runs'] extends infer _ ? Record<string, unknown> : never

/** A `runs` row as the run it stores. */
export function toRun(row: RunRow): StoredRun {
  return {
    id: row.id as string,
    kind: row.kind as 'plan' | 'swarm',
    swarmId: (row.swarm_id as string | null) ?? null,
    plan: row.plan as Record<string, unknown>,
    inputs: row.inputs as Record<string, unknown>,
    budget: (row.budget as Record<string, unknown> | null) ?? null,
    status: row.status as RunStatus,
    output: row.output ?? null,
    error: (row.error as RunError | null) ?? null,
    usage: row.usage as StoredUsage,
    usageByWallet: row.usage_by_wallet as Record<string, StoredUsage>,
    state: (row.state as Record<string, unknown> | null) ?? null,
    question: (row.question as string | null) ?? null,
    executedBy: (row.executed_by as string | null) ?? null,
    attempt: Number(row.attempt ?? 0),
    owner: (row.owner as string | undefined) ?? 'anonymous',
    traceId: (row.trace_id as string | null | undefined) ?? null,
    createdAt: new Date(row.created_at as Date).toISOString(),
    updatedAt: new Date(row.updated_at as Date).toISOString(),
  }
}
