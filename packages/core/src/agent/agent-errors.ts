import { BatonError } from '../errors/baton-error'

/** A run failed for a reason that is not already a Baton error (a provider's HTTP error, say). */
export class AgentRunError extends BatonError {
  override name = 'AgentRunError'
  constructor(options: { agent: string; wallet: string; model: string; cause: unknown }) {
    const { agent, wallet, model, cause } = options
    const reason = cause instanceof Error ? cause.message : String(cause)
    const status = (cause as { statusCode?: unknown } | undefined)?.statusCode
    super(
      'AGENT_RUN_FAILED',
      `Agent "${agent}" (${wallet}) failed calling ${model}${
        typeof status === 'number' ? ` (HTTP ${status})` : ''
      }: ${reason}`,
      {
        cause,
        details: { agent, wallet, model, ...(typeof status === 'number' ? { status } : {}) },
      },
    )
  }
}
