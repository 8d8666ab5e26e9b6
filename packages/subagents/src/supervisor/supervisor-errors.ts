import { BatonError } from '@baton/core'

/** `delegate` would nest sub-agents deeper than the supervisor's `maxDepth`. */
export class MaxDepthExceededError extends BatonError {
  override name = 'MaxDepthExceededError'
  constructor(options: { depth: number; maxDepth: number }) {
    super(
      'MAX_DEPTH_EXCEEDED',
      `Cannot delegate: a sub-agent at depth ${options.depth} would exceed the maximum depth of ${options.maxDepth}.`,
      { details: { ...options } },
    )
  }
}

/** No sub-agent with this id was started by this caller (or it was cleaned up). */
export class UnknownSubagentError extends BatonError {
  override name = 'UnknownSubagentError'
  constructor(options: { id: string; known: string[] }) {
    super(
      'UNKNOWN_SUBAGENT',
      `No sub-agent "${options.id}" was started by this caller (known: ${options.known.join(', ') || 'none'}).`,
      { details: { ...options } },
    )
  }
}

/** `sendAgent` to a sub-agent that cannot take a message now. */
export class SubagentUnavailableError extends BatonError {
  override name = 'SubagentUnavailableError'
  constructor(options: { id: string; status: string; reason: string }) {
    super(
      'SUBAGENT_UNAVAILABLE',
      `Cannot send to sub-agent "${options.id}" (${options.status}): ${options.reason}.`,
      {
        details: { ...options },
      },
    )
  }
}

/** `delegate` asked for a model of another provider than the caller's. */
export class ModelProviderMismatchError extends BatonError {
  override name = 'ModelProviderMismatchError'
  constructor(options: { model: string; provider: string }) {
    super(
      'MODEL_PROVIDER_MISMATCH',
      `Cannot delegate to model "${options.model}": a sub-agent may use another model of its caller's provider "${options.provider}" only.`,
      { details: { ...options } },
    )
  }
}
