import { BatonError, type BatonErrorOptions } from '@baton/core'

/** A swarm id the store has no swarm for. */
export class UnknownSwarmError extends BatonError {
  override name = 'UnknownSwarmError'
  constructor(swarmId: string) {
    super('SWARM_NOT_FOUND', `No swarm "${swarmId}" is known to this surface.`, {
      details: { swarmId },
    })
  }
}

/** `startSwarmRun` was called on a store that was given no `SwarmRunner`. */
export class SwarmRunnerMissingError extends BatonError {
  override name = 'SwarmRunnerMissingError'
  constructor(swarmId: string) {
    super(
      'SWARM_RUNNER_MISSING',
      `Cannot run swarm "${swarmId}": the advanced agent store has no swarm runner (pass { runner } to createAdvancedAgentStore).`,
      { details: { swarmId } },
    )
  }
}

/** The runner refused or failed to start a run; nothing of it is left in the store. */
export class SwarmRunStartError extends BatonError {
  override name = 'SwarmRunStartError'
  constructor(swarmId: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause)
    const causeCode = (cause as { code?: unknown } | null)?.code
    super('SWARM_RUN_START_FAILED', `Swarm "${swarmId}" could not start: ${reason}`, {
      cause,
      details: { swarmId, ...(typeof causeCode === 'string' ? { causeCode } : {}) },
    })
  }
}

/** The swarm list could not be loaded: network error, timeout, a non-2xx answer, or not JSON. */
export class SwarmsUnavailableError extends BatonError {
  override name = 'SwarmsUnavailableError'
  constructor(where: string, reason: string, options: BatonErrorOptions = {}) {
    super('SWARMS_UNAVAILABLE', `Could not load swarms from ${where}: ${reason}.`, {
      ...options,
      details: { ...options.details, where, reason },
    })
  }
}

/** `waitForSwarmRun(..., { rejectOnFailure: true })`: the run ended `failed` or `cancelled`. */
export class SwarmRunFailedError extends BatonError {
  override name = 'SwarmRunFailedError'
  constructor(options: {
    runId: string
    swarmId: string
    status: 'failed' | 'cancelled'
    error: { code: string; message: string }
  }) {
    super(
      'SWARM_RUN_FAILED',
      `Swarm "${options.swarmId}" run "${options.runId}" ended ${options.status}: ${options.error.message}`,
      {
        details: {
          runId: options.runId,
          swarmId: options.swarmId,
          status: options.status,
          causeCode: options.error.code,
          reason: options.error.message,
        },
      },
    )
  }
}
