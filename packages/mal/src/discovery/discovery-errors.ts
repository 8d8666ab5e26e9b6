import { BatonError } from '@baton/core'

/** A run was asked to search for something it has no lookup for (or the lookup failed). */
export class DiscoveryUnavailableError extends BatonError {
  override name = 'DiscoveryUnavailableError'
  constructor(options: { op: string; reason: string; cause?: unknown }) {
    super('DISCOVERY_UNAVAILABLE', `${options.op} cannot run: ${options.reason}.`, {
      details: { op: options.op },
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    })
  }
}
