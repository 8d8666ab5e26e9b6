import { BatonError, type BatonErrorOptions } from '@baton/core'

/** The swarm server could not be reached, or answered something that is not a run. */
export class SwarmServerError extends BatonError {
  override name = 'SwarmServerError'
  constructor(where: string, reason: string, options: BatonErrorOptions = {}) {
    super('SWARM_SERVER_UNAVAILABLE', `Swarm server request ${where} failed: ${reason}.`, {
      ...options,
      details: { ...options.details, where, reason },
    })
  }
}

/** The swarm server refused to start a run (4xx); `code` is the server's when it gave one. */
export class SwarmRunRefusedError extends BatonError {
  override name = 'SwarmRunRefusedError'
  readonly status: number
  constructor(options: { where: string; status: number; code?: string; message?: string }) {
    super(
      options.code ?? 'SWARM_RUN_REFUSED',
      `The swarm server refused ${options.where} (${options.status}): ${options.message ?? 'no reason given'}.`,
      { details: { where: options.where, status: options.status } },
    )
    this.status = options.status
  }
}
