import { BatonError } from '@baton/core'

const builtInNames = ['claude-code', 'codex']

/** `delegate` named an external agent that is neither built in nor configured. */
export class UnknownAdapterError extends BatonError {
  override name = 'UnknownAdapterError'
  constructor(options: { adapter: string; known: string[] }) {
    const known = options.known.length > 0 ? options.known.join(', ') : 'none'
    // Built-in adapters are opt-in, so name the way to enable one.
    const hint = builtInNames.includes(options.adapter)
      ? ` It is built in but not enabled: pass adapters: ['${options.adapter}'] to createSupervisor.`
      : ''
    super(
      'UNKNOWN_AGENT_ADAPTER',
      `No external agent adapter is named "${options.adapter}" (enabled: ${known}).${hint}`,
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

/** An adapter's arguments would pass a task that starts with `-` where the program reads flags. */
export class UnsafeAdapterArgumentsError extends BatonError {
  override name = 'UnsafeAdapterArgumentsError'
  constructor(options: { command: string; index: number }) {
    super(
      'AGENT_ADAPTER_UNSAFE_ARGUMENTS',
      `External agent "${options.command}" was not started: its task starts with "-" and argument ${options.index} would pass it as a flag; the adapter must put the task after "--".`,
      { details: { command: options.command, index: options.index } },
    )
  }
}
