import { BatonError } from '@baton/core'

/** `delegate` named an external agent that is neither built in nor configured. */
export class UnknownAdapterError extends BatonError {
  override name = 'UnknownAdapterError'
  constructor(options: { adapter: string; known: string[] }) {
    super(
      'UNKNOWN_AGENT_ADAPTER',
      `No external agent adapter is named "${options.adapter}" (known: ${options.known.join(', ')}).`,
      { details: { adapter: options.adapter, known: options.known } },
    )
  }
}

/** The adapter's command cannot be found, so the external agent cannot start. */
export class AdapterUnavailableError extends BatonError {
  override name = 'AdapterUnavailableError'
  constructor(options: { adapter: string; command: string }) {
    super(
      'AGENT_ADAPTER_UNAVAILABLE',
      `External agent "${options.adapter}" is unavailable: command "${options.command}" is not on PATH.`,
      { details: { adapter: options.adapter, command: options.command } },
    )
  }
}

/** The external agent's process failed: it reported an error, or exited without success. */
export class AdapterProcessError extends BatonError {
  override name = 'AdapterProcessError'
  constructor(options: {
    command: string
    reason: string
    exitCode?: number | null
    stderr?: string
  }) {
    super(
      'AGENT_PROCESS_FAILED',
      `External agent "${options.command}" failed: ${options.reason}.`,
      {
        details: { command: options.command, exitCode: options.exitCode, stderr: options.stderr },
        ...(options.stderr ? { metaMessages: [`stderr: ${options.stderr}`] } : {}),
      },
    )
  }
}
