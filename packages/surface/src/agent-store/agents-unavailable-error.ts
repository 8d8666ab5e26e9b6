import { BatonError, type BatonErrorOptions } from '@baton/core'

/** The agent list could not be loaded: network error, timeout, a non-2xx answer, or not JSON. */
export class AgentsUnavailableError extends BatonError {
  override name = 'AgentsUnavailableError'
  constructor(where: string, reason: string, options: BatonErrorOptions = {}) {
    super('AGENTS_UNAVAILABLE', `Could not load agents from ${where}: ${reason}.`, {
      ...options,
      details: { ...options.details, where, reason },
    })
  }
}
