import type { Envelope, MessageBus } from '@baton/comm'
import type { StoreApi } from 'zustand/vanilla'
import type { AdvancedAgentStore } from '../advanced-agent-store/create-advanced-agent-store'
import type { AgentStore } from '../agent-store/create-agent-store'

/** What sends A2A messages: the bus itself, or the communication store that wraps it. */
export type DelegationMessenger = Pick<MessageBus, 'send' | 'forward'>

export type CreateDelegationOptions = {
  agents: AgentStore
  swarms: AdvancedAgentStore
  /** The bus, or a store whose state sends through it (`createCommunicationStore(bus)`). */
  comm: DelegationMessenger | Pick<StoreApi<DelegationMessenger>, 'getState'>
}

/** How a delegation was routed. */
export type DelegationRoute = 'swarm' | 'message' | 'direct'

/**
 * The outcome of `delegate` / `forward`. `success: false` always carries a `message` saying
 * what was wrong; nothing was started or sent in that case, and nothing ever will be.
 * `success: true, held: true` is a message the loop guard keeps for a person: it is delivered
 * if they allow the chain (`bus.allow(escalationId, hops)`), and dropped if they stop it.
 */
export type DelegationResult = {
  success: boolean
  /** The agent id, or `swarm:<id>` for a swarm run. */
  delegatedTo?: string
  message?: string
  route?: DelegationRoute
  /** The conversation of the A2A message (route `message`). */
  correlationId?: string
  /** The envelope that went on the bus (route `message`). */
  envelope?: Envelope
  /** The swarm run that was started (route `swarm`). */
  runId?: string
  /** The loop guard holds the message until a person decides (`escalationId`). */
  held?: boolean
  /** The escalation that holds the message, when `held`. */
  escalationId?: string
  /**
   * The stable code of the error behind a failure (`UNKNOWN` when it had none), or
   * `LOOP_GUARD_ESCALATED` beside `held: true`.
   */
  errorCode?: string
}

export type Delegation = {
  /**
   * Routes `task` from one agent to another: a swarm run for a `swarm_<id>`, an A2A message
   * for an agent whose card says `canDelegate`, and nothing for any other agent (the caller
   * runs it). Never rejects: every failure is a `{ success: false, message }`.
   */
  delegate(fromAgentId: string, toAgentId: string, task: string): Promise<DelegationResult>
  /**
   * Passes a delegated message on to another agent in the same conversation (same
   * correlation id, `hop + 1`), so the loop guard sees the whole chain. Never rejects.
   */
  forward(message: Envelope, toAgentId: string, content?: string): Promise<DelegationResult>
}
