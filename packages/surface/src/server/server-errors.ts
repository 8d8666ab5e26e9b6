import { BatonError, type BatonErrorOptions } from '@baton/core'

/**
 * The Baton server could not be reached, timed out, or answered 5xx. `status` is the 5xx
 * status, undefined when no answer came at all.
 */
export class ServerUnavailableError extends BatonError {
  override name = 'ServerUnavailableError'
  readonly status: number | undefined
  constructor(
    where: string,
    reason: string,
    options: BatonErrorOptions & { status?: number } = {},
  ) {
    const { status, ...rest } = options
    super('SERVER_UNAVAILABLE', `The Baton server did not answer ${where}: ${reason}.`, {
      ...rest,
      details: { ...rest.details, where, reason, ...(status === undefined ? {} : { status }) },
    })
    this.status = status
  }
}

/**
 * The Baton server refused a request (4xx). `code` and `details` are the server's own
 * (`{ error: { code, message, details } }`), so a caller can show every issue it listed.
 */
export class ServerRefusedError extends BatonError {
  override name = 'ServerRefusedError'
  readonly status: number
  constructor(options: {
    where: string
    status: number
    code?: string
    message?: string
    details?: Record<string, unknown>
  }) {
    super(
      options.code ?? 'SERVER_REFUSED',
      options.message ?? `The server refused ${options.where}.`,
      {
        details: { ...options.details, where: options.where, status: options.status },
      },
    )
    this.status = options.status
  }
}

/**
 * The server's loop guard refused or held a message (`LOOP_GUARD_ESCALATED` /
 * `LOOP_GUARD_STOPPED`). It carries `held`, `correlationId` and `escalation` like comm's
 * `LoopGuardError`, so `useA2ADelegation` reports a held message as held, not as lost.
 */
export class ServerLoopGuardError extends ServerRefusedError {
  override name = 'ServerLoopGuardError'
  readonly held: boolean
  readonly correlationId: string | undefined
  readonly escalation: { id: string } | undefined
  constructor(refused: ServerRefusedError) {
    const details = refused.details
    super({
      where: String(details.where),
      status: refused.status,
      code: refused.code,
      message: refused.shortMessage,
      details,
    })
    this.held = details.held === true
    this.correlationId =
      typeof details.correlationId === 'string' ? details.correlationId : undefined
    this.escalation =
      typeof details.escalationId === 'string' ? { id: details.escalationId } : undefined
  }
}
