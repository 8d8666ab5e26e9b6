import type { MessageBus } from '@baton/comm'
import type { Agent, Budget, HttpRegistryClient, MemoryStore, ModelRegistry } from '@baton/core'
import type { Kysely } from 'kysely'
import type { Database } from '../db/database'
import type { GroupCommit } from '../db/group-commit'
import type { Repositories } from '../db/repositories'
import type { RuntimeSigner } from '../receipt/load-runtime-signer'
import type { CachedAgentListing } from '../registry/cache-agent-listing'
import type { CachedRegistryAnswers } from '../registry/cache-registry-answers'
import type { Settings } from '../settings/settings'
import type { ServerMetrics } from '../telemetry/server-metrics'
import type { ToolCatalogue } from '../tools/create-tool-catalogue'
import type { RunService } from './run-service'

/** What `agentHost.runHostedAgent` takes: one message for one hosted agent. */
export type RunHostedAgentInput = {
  /** The hosted agent, or its wallet (any case) or id. Revoked agents are refused. */
  agent: Agent | string
  /** The message text. */
  input: string
  /** Keeps a conversation together (default: a new one). */
  correlationId?: string
  /** How many times the conversation has been passed on already (default 0). */
  hop?: number
  /** The sender's grant; the server's default per-message budget when absent. */
  budget?: Budget
  signal?: AbortSignal
  /** Called with the answer text as it becomes known. */
  onText?: (text: string) => void
  /**
   * Streams the run: called with each piece of the answer's text as the model sends it,
   * coalesced (the first at once, then at most every ~50 ms or 400 characters).
   */
  onDelta?: (text: string) => void
  /** Who asked (an agent id or wallet); recorded in the ledger and on the bus. */
  from?: string
}

export type RunHostedAgentResult = {
  text: string
  usage: { calls: number; tokens: number; costUsd: number }
  correlationId: string
  hop: number
}

/**
 * Deployed agents: runs `runAgent` with the agent's card, its memory in the database, and
 * the spend ledger; agents whose card says `canDelegate` also get tools to forward to peers
 * (through the loop guard).
 */
export interface AgentHost {
  runHostedAgent(input: RunHostedAgentInput): Promise<RunHostedAgentResult>
  /**
   * Listens to the text of hosted agents' bus replies as they are written (live only: the
   * reply itself goes on the bus whole when it is done).
   */
  onReplyDelta?(listener: (delta: ReplyDelta) => void): () => void
}

/** A piece of a hosted agent's bus reply, as its model streams it. */
export type ReplyDelta = {
  correlationId: string
  /** The envelope being answered. */
  inReplyTo: string
  from: { agentId: string }
  to: { agentId: string }
  text: string
}

/**
 * The services decorated once on the fastify app as `app.baton`, built by `createServices`.
 * Route plugins (and the A2A plugin in `a2a/`) read everything they need from here.
 *
 * @example
 * app.get('/whoami', async () => ({ dataDir: app.baton.settings.dataDir }))
 */
export type BatonServices = {
  settings: Settings
  /** The one query layer over PGlite (embedded) or PostgreSQL (`DATABASE_URL`). */
  db: Kysely<Database>
  /**
   * The process's one writer to `db`: writes of concurrent requests waiting for their turn go in
   * one transaction, each answered once it has committed (see `db/group-commit.ts`).
   */
  writer: GroupCommit
  repositories: Repositories
  /** A core `RegistryClient` backed by the database; `invalidate(wallet)` after a change. */
  registry: Pick<HttpRegistryClient, 'ensureRegisteredAgent' | 'invalidate' | 'clear'>
  /** `GET /agent/:wallet`'s answers, serialised once per wallet, dropped with the registry's cache. */
  registryAnswers: CachedRegistryAnswers
  /** `GET /api/v1/agents`'s answers, serialised once per query, dropped with the agent directory's cache. */
  agentPages: CachedAgentListing['page']
  bus: MessageBus
  agentHost: AgentHost
  runs: RunService
  /** The key that signs run receipts (BATON_RUNTIME_KEY, or a development key). */
  runtime: RuntimeSigner
  memory: MemoryStore
  models: ModelRegistry
  /** The tools the server can grant: built-in, the operator's module, MCP servers'. */
  tools: ToolCatalogue
  /** Prometheus (`GET /metrics`) and OpenTelemetry metrics of this app. */
  metrics: ServerMetrics
  /** Aborted when the server starts shutting down (long-lived streams end on it). */
  closing: AbortSignal
  /**
   * What keeps the process from serving, each check bounded in time: the database, Redis (when
   * configured) and the data folder (PGlite in a folder). Empty when every check passed.
   */
  readiness(): Promise<Readiness>
  /** Stops background work and closes the bus and the database. */
  close(): Promise<void>
}

/** Each failed readiness check by name, with why it failed. */
export type Readiness = { database?: string; redis?: string; dataFolder?: string }

declare module 'fastify' {
  interface FastifyInstance {
    baton: BatonServices
  }
}
