import type { TrustTier } from '@baton/core'
import type { ColumnType, Generated, JSONColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type Json<T extends object | null = object | null> = JSONColumnType<T, string, string>

/** Usage in every dimension a budget counts, as stored. */
export type StoredUsage = { calls: number; tokens: number; costUsd: number }

export type AgentsTable = {
  wallet: string
  id: string
  creator: string
  record: Json<Record<string, unknown>>
  created_at: Timestamp
  updated_at: Timestamp
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  /** The trust tier an admin granted (null: none; the agent's own tier counts up to `low`). */
  granted_trust_tier: ColumnType<TrustTier | null, string | null | undefined, string | null>
}

export type AgentHistoryTable = {
  id: Generated<number>
  wallet: string
  change: 'register' | 'update' | 'revoke'
  record: Json<Record<string, unknown>>
  signer: string
  at: Timestamp
}

export type RegistrationNoncesTable = {
  nonce: string
  signer: string
  used_at: Timestamp
}

export type SwarmsTable = {
  id: string
  record: Json<Record<string, unknown>>
  created_at: Timestamp
  /** The principal that created it (`anonymous` for swarms stored before owners were kept). */
  owner: Generated<string>
}

export type PlansTable = {
  id: string
  name: string
  source: string
  created_at: Timestamp
}

export type RunsTable = {
  id: string
  kind: 'plan' | 'swarm'
  swarm_id: string | null
  plan: Json<Record<string, unknown>>
  inputs: Json<Record<string, unknown>>
  budget: Json<Record<string, unknown> | null>
  status: string
  output: Json<object | null>
  error: Json<Record<string, unknown> | null>
  usage: Json<StoredUsage>
  usage_by_wallet: Json<Record<string, StoredUsage>>
  /** The state a paused (or interrupted) run continues from. */
  state: Json<Record<string, unknown> | null>
  question: string | null
  /** The process (`BATON_WORKER_NAME`) that executes or executed the run; null until taken. */
  executed_by: string | null
  /** How many times an executor took the run: 1 for its first, one more on each takeover or resume. */
  attempt: Generated<number>
  /** The principal that started the run (`admin`, `key:<id>` or `anonymous`). */
  owner: Generated<string>
  /** The OpenTelemetry trace of the run (null when no tracing SDK is registered). */
  trace_id: string | null
  /** The W3C `traceparent` of the span of the attempt executing the run. */
  trace_parent: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

export type RunStepsTable = {
  run_id: string
  path: string
  op: string
  save_as: string | null
  value: Json<object | null>
  usage: Json<StoredUsage>
  wallet: string | null
  duration_ms: number
  sequence: number
  finished_at: Timestamp
}

export type RunEventsTable = {
  run_id: string
  sequence: number
  type: string
  event: Json<Record<string, unknown>>
}

/** A file a run's step left behind (a screenshot), kept whole. */
export type RunFilesTable = {
  run_id: string
  name: string
  step_path: string
  media_type: string
  data: Uint8Array
  created_at: Generated<Timestamp>
}

export type LedgerTable = {
  id: Generated<number>
  run_id: string | null
  wallet: string
  calls: number
  tokens: number
  cost_usd: number
  /** The step that spent it (`steps[1].then[0]`); null for spend outside a plan's steps. */
  step_path: string | null
  /** The run's attempt (`runs.attempt`) that spent it; null for spend outside a run. */
  attempt: number | null
  /** The bus conversation a hosted agent spent it in; null for spend outside one. */
  correlation_id: string | null
  /** The bus message whose answer spent it (what the reply's `inReplyTo` names). */
  message_id: string | null
  at: Timestamp
}

export type SwarmCallsTable = {
  run_id: string
  /** The member call: its budget name relative to the run (`r1/lead#2`). */
  key: string
  prompt_hash: string
  text: string
  usage: Json<StoredUsage>
  /** The run's attempt (`runs.attempt`) that made the call. */
  attempt: number
  at: Timestamp
}

export type MessagesTable = {
  position: Generated<number>
  id: string
  correlation_id: string
  envelope: Json<Record<string, unknown>>
  /** False while the message is stored and the bus has not yet sent it. */
  sent: Generated<boolean>
  created_at: Timestamp
}

export type EscalationsTable = {
  id: string
  correlation_id: string
  status: string
  record: Json<Record<string, unknown>>
  updated_at: Timestamp
}

export type IdempotencyKeysTable = {
  /** The route the key belongs to (`POST /api/v1/runs`). */
  scope: string
  key: string
  /** SHA-256 of the request's body (its JSON with sorted keys). */
  request_hash: string
  /** Null while the first request with the key is being answered. */
  response_status: number | null
  response_body: Json<Record<string, unknown> | null>
  /**
   * The id of what the request that holds the key creates (a run's, a message's), set before
   * it is created; null on keys claimed before it was kept.
   */
  resource_id: string | null
  created_at: Timestamp
}

export type MemoryEntriesTable = {
  id: Generated<number>
  scope: string
  entry: Json<Record<string, unknown>>
  created_at: Timestamp
}

export type ApiKeysTable = {
  id: string
  name: string
  /** sha256 (hex) of the key; the key itself is shown once, when it is made. */
  key_hash: string
  /** JSON array of scopes. */
  scopes: string
  created_at: Generated<Date>
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

export type RuntimeSecretsTable = {
  name: string
  value: string
  created_at: Generated<Date>
}

export type ConversationOwnersTable = {
  correlation_id: string
  owner: string
  created_at: Generated<Date>
}

/** Every table of the server's schema (see `migrations/`). */
export type Database = {
  agents: AgentsTable
  agent_history: AgentHistoryTable
  registration_nonces: RegistrationNoncesTable
  swarms: SwarmsTable
  plans: PlansTable
  runs: RunsTable
  run_steps: RunStepsTable
  run_events: RunEventsTable
  run_files: RunFilesTable
  ledger: LedgerTable
  swarm_calls: SwarmCallsTable
  messages: MessagesTable
  escalations: EscalationsTable
  memory_entries: MemoryEntriesTable
  api_keys: ApiKeysTable
  conversation_owners: ConversationOwnersTable
  idempotency_keys: IdempotencyKeysTable
  runtime_secrets: RuntimeSecretsTable
}
