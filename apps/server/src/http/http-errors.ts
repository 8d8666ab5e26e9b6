import { BatonError } from '@baton/core'

/** A refusal of the HTTP layer itself (auth, signatures, conflicts), with its own code. */
export class HttpError extends BatonError {
  override name = 'HttpError'
  readonly statusCode: number
  constructor(
    statusCode: number,
    code: string,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, { details })
    this.statusCode = statusCode
  }
}

/** The resource named in the path does not exist. */
export class NotFoundError extends HttpError {
  override name = 'NotFoundError'
  constructor(what: string, id: string) {
    super(404, 'NOT_FOUND', `${what} "${id}" was not found.`, { what, id })
  }
}
