import { BatonError } from '@baton/core'

/** A swarm id (or a `swarm_<id>` agent id) that is empty or has characters outside `[A-Za-z0-9_-]`. */
export class InvalidSwarmIdError extends BatonError {
  override name = 'InvalidSwarmIdError'
  readonly swarmId: string
  constructor(swarmId: string, where: string) {
    super(
      'INVALID_SWARM_ID',
      `Invalid swarm id "${swarmId}" in ${where}: a swarm id must be non-empty and use only letters, digits, "_" and "-".`,
      { details: { swarmId, where } },
    )
    this.swarmId = swarmId
  }
}
