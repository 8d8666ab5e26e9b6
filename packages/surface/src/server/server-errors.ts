import { BatonError, type BatonErrorOptions } from '@baton/core'

/** The Baton server could not be reached, timed out, or answered 5xx. */
export class ServerUnavailableError extends BatonError {
  override name = 'ServerUnavailableError'
  constructor(where: string, reason: string, options: BatonErrorOptions = {}) {
    super('SERVER_UNAVAILABLE', `The Baton server did not answer ${where}: ${reason}.`, {
      ...options,
      details: { ...options.details, where, reason },
    })
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
