import { BatonError } from '@baton/core'

/** `launch` named an app the caller did not allow. */
export class DisplayAppNotAllowedError extends BatonError {
  override name = 'DisplayAppNotAllowedError'
  constructor(options: { app: string; allowed: string[] }) {
    super(
      'DISPLAY_APP_NOT_ALLOWED',
      `App "${options.app}" is not allowed on this display (allowed: ${options.allowed.join(', ') || 'none'}).`,
      { details: { app: options.app, allowed: options.allowed } },
    )
  }
}

/** A display tool could not do what it was asked (a command failed, the display did not start). */
export class DisplayActionError extends BatonError {
  override name = 'DisplayActionError'
  constructor(options: { tool: string; reason: string; cause?: unknown }) {
    super('DISPLAY_ACTION_FAILED', `${options.tool} failed: ${options.reason}.`, {
      details: { tool: options.tool, reason: options.reason },
      cause: options.cause,
    })
  }
}
