import { BatonError } from '@baton/core'

/** A swarm lists a member whose agent id resolves to no agent. */
export class SwarmMemberNotFoundError extends BatonError {
  override name = 'SwarmMemberNotFoundError'
  readonly swarmId: string
  readonly agentId: string
  constructor(options: { swarmId: string; agentId: string; index: number }) {
    const { swarmId, agentId, index } = options
    super(
      'SWARM_MEMBER_NOT_FOUND',
      `Swarm "${swarmId}" lists member agents[${index}] "${agentId}", but no agent has that id.`,
      { details: { swarmId, agentId, index } },
    )
    this.swarmId = swarmId
    this.agentId = agentId
  }
}

/** A swarm runner was asked to start a swarm it does not know. */
export class SwarmNotFoundError extends BatonError {
  override name = 'SwarmNotFoundError'
  readonly swarmId: string
  constructor(swarmId: string) {
    super('SWARM_NOT_FOUND', `No swarm has the id "${swarmId}".`, { details: { swarmId } })
    this.swarmId = swarmId
  }
}
/** A member call failed for a reason other than the budget or a cancellation. */
export class SwarmMemberCallError extends BatonError {
  override name = 'SwarmMemberCallError'
  readonly agentId: string
  readonly round: number
  constructor(options: { swarmId: string; agentId: string; round: number; cause: unknown }) {
    const { swarmId, agentId, round, cause } = options
    const reason = cause instanceof Error ? cause.message : String(cause)
    super(
      'SWARM_MEMBER_FAILED',
      `Member "${agentId}" of swarm "${swarmId}" failed in round ${round}: ${reason}`,
      { details: { swarmId, agentId, round }, cause },
    )
    this.agentId = agentId
    this.round = round
  }
}

/** A swarm run was cancelled by whoever started it. */
export class SwarmRunCancelledError extends BatonError {
  override name = 'SwarmRunCancelledError'
  readonly runId: string
  constructor(runId: string) {
    super('CANCELLED', `Swarm run "${runId}" was cancelled.`, { details: { runId } })
    this.runId = runId
  }
}

/** A member call ran but its journal could not keep it; the run stops rather than go on unrecorded. */
export class SwarmJournalWriteError extends BatonError {
  override name = 'SwarmJournalWriteError'
  readonly key: string
  constructor(options: { swarmId: string; key: string; cause: unknown }) {
    const { swarmId, key, cause } = options
    const reason = cause instanceof Error ? cause.message : String(cause)
    super(
      'SWARM_JOURNAL_FAILED',
      `Swarm "${swarmId}" could not record member call "${key}" in its journal: ${reason}`,
      { details: { swarmId, key }, cause },
    )
    this.key = key
  }
}
