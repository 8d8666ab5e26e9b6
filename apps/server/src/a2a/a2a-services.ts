import type { Agent, Budget } from '@baton/core'
import type { Kysely } from 'kysely'
import type { GroupCommit } from '../db/group-commit'
import type { ListeningAddress } from '../http/public-url'

/**
 * One message for one hosted agent, as the server's agent host takes it
 * (`agentHost.runHostedAgent` in `services.ts`; only the fields the A2A endpoints use).
 */
export type HostedAgentRun = {
  agent: Agent | string
  input: string
  /** Keeps a conversation together. */
  correlationId?: string
  /** How many times the conversation has been passed on already. */
  hop?: number
  budget?: Budget
  signal?: AbortSignal
  /** Who asked (an agent id or wallet). */
  from?: string
  /** Streams the answer: each piece of its text as the model writes it (coalesced). */
  onDelta?: (text: string) => void
}

export type HostedAgentAnswer = {
  text: string
  usage: { calls: number; tokens: number; costUsd: number }
  correlationId: string
  hop: number
}

/** The little the A2A endpoints need from the server, so they can be tested on their own. */
export type A2AServices = {
  /** When set, the JSON-RPC endpoints require `Authorization: Bearer <token>` and the cards say so. */
  apiToken: string | undefined
  /**
   * The deployment's Redis (scale-out): tasks are then followed and cancelled on any process,
   * not only the one executing them.
   */
  redisUrl?: string
  /** BATON_PUBLIC_URL: the base of the endpoint URLs the cards advertise (never the `Host` header). */
  publicUrl?: string
  /** Where the server listens before it is bound (`inject()`); the bound address once it is. */
  listening?: ListeningAddress
  /** The server's database: A2A tasks live in its `a2a_tasks` table (migration 0002). */
  // biome-ignore lint/suspicious/noExplicitAny: the task store names its table at runtime, whatever the schema.
  db: Kysely<any>
  /** The process's group commit on `db` (its tasks' saves go through it); else one of the endpoints' own. */
  writer?: GroupCommit
  /**
   * How long a stop waits for the tasks executing here before it fails what is left (default
   * the server's shutdown bound, 10 s).
   */
  stopWithinMs?: number
  /** Aborted when the server begins to stop: the tasks executing here are drained from then. */
  closing?: AbortSignal
  /**
   * With Redis: how long a process's mark on a task it executes outlives it (BATON_LEASE_MS,
   * default 15 s here). A task whose process has been gone that long, twice over, is failed.
   */
  taskLeaseMs?: number
  /**
   * With Redis: how long a message's start waits on it to say which process starts the
   * message (BATON_REDIS_TIMEOUT_MS, default 5 s); past it the process starts it as if alone.
   */
  redisTimeoutMs?: number
  /** The live hosted agent with this id. */
  findAgent(agentId: string): Promise<Agent | undefined>
  /**
   * What identifies the agent's registration (not its id, which a revoked agent leaves for
   * anyone to register again): its A2A tasks are kept under it.
   */
  registrationOf(agent: Agent): Promise<string>
  /**
   * The agent the server-wide card describes: the one BATON_A2A_ROOT_AGENT names, else the
   * first orchestrator.
   */
  findOrchestrator(): Promise<Agent | undefined>
  runHostedAgent(input: HostedAgentRun): Promise<HostedAgentAnswer>
  /** How many hops the bus has counted in a conversation (0 when it has not seen it). */
  hops(correlationId: string): number
  /**
   * Puts an arriving A2A message on the bus as one hop of its conversation, through the
   * loop guard: past `maxHops` it rejects (the guard holds the message and escalates).
   */
  recordMessage(message: A2ABusMessage): Promise<void>
}

/** An A2A message as the bus sees it. */
export type A2ABusMessage = {
  from: string
  /** The hosted agent the message is for. */
  to: string
  content: string
  correlationId: string
  hop: number
}

/**
 * The bus address of a hosted agent's A2A endpoint. Not the agent's own id: the message is
 * already being answered over A2A, and the agent host's bus subscriber must not run it twice.
 */
export const a2aInbox = (agentId: string) => `a2a:${agentId}`

/** The parts of the decorated server services (`app.baton`) that the A2A endpoints read. */
export type ServerServicesForA2A = {
  settings: {
    apiToken: string | undefined
    redisUrl?: string | undefined
    publicUrl?: string | undefined
    a2aRootAgent?: string | undefined
    leaseMs?: number
    redisTimeoutMs?: number
    host?: string
    port?: number
  }
  // biome-ignore lint/suspicious/noExplicitAny: see A2AServices.db.
  db: Kysely<any>
  writer?: GroupCommit
  closing?: AbortSignal
  repositories: {
    agents: {
      findById(id: string): Promise<Agent | undefined>
      /** The agent's registration (see `A2AServices.registrationOf`); without it, the wallet. */
      registrationOf?(wallet: string): Promise<string | undefined>
      list(options: { type?: string; limit: number; offset: number }): Promise<{ agents: Agent[] }>
    }
  }
  agentHost: { runHostedAgent(input: HostedAgentRun): Promise<HostedAgentAnswer> }
  bus: {
    hops(correlationId: string): number
    send(input: {
      from: { agentId: string }
      to: { agentId: string }
      content: string
      correlationId?: string
      hop?: number
    }): Promise<unknown>
  }
}

/**
 * The A2A endpoints' view of the decorated server services.
 *
 * @example
 * await app.register(createA2APlugin(a2aServicesFrom(app.baton)))
 */
export function a2aServicesFrom(baton: ServerServicesForA2A): A2AServices {
  return {
    apiToken: baton.settings.apiToken,
    ...(baton.settings.redisUrl ? { redisUrl: baton.settings.redisUrl } : {}),
    ...(baton.settings.publicUrl ? { publicUrl: baton.settings.publicUrl } : {}),
    ...(baton.settings.host !== undefined && baton.settings.port !== undefined
      ? { listening: { address: baton.settings.host, port: baton.settings.port } }
      : {}),
    db: baton.db,
    ...(baton.writer ? { writer: baton.writer } : {}),
    ...(baton.closing ? { closing: baton.closing } : {}),
    ...(baton.settings.leaseMs !== undefined ? { taskLeaseMs: baton.settings.leaseMs } : {}),
    ...(baton.settings.redisTimeoutMs !== undefined
      ? { redisTimeoutMs: baton.settings.redisTimeoutMs }
      : {}),
    findAgent: (agentId) => baton.repositories.agents.findById(agentId),
    registrationOf: async (agent) =>
      (await baton.repositories.agents.registrationOf?.(agent.wallet)) ?? agent.wallet,
    findOrchestrator: async () => {
      const root = baton.settings.a2aRootAgent
      if (root) return baton.repositories.agents.findById(root)
      const { agents } = await baton.repositories.agents.list({
        type: 'orchestrator',
        limit: 1,
        offset: 0,
      })
      return agents[0]
    },
    runHostedAgent: (input) => baton.agentHost.runHostedAgent(input),
    hops: (correlationId) => baton.bus.hops(correlationId),
    recordMessage: async (message) => {
      await baton.bus.send({
        from: { agentId: message.from },
        to: { agentId: a2aInbox(message.to) },
        content: message.content,
        correlationId: message.correlationId,
        hop: message.hop,
      })
    },
  }
}
