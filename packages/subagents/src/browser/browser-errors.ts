import { BatonError } from '@baton/core'

/** A page or request outside the workspace's allowed origins (or not http/https at all). */
export class BrowserNavigationRefusedError extends BatonError {
  override name = 'BrowserNavigationRefusedError'
  constructor(options: { url: string; reason: string }) {
    super(
      'BROWSER_NAVIGATION_REFUSED',
      `Refused to open ${shorten(options.url)}: ${options.reason}.`,
      {
        details: { url: options.url, reason: options.reason },
      },
    )
  }
}

/** A browser tool could not do what it was asked (an unknown ref or tab, an element that never became clickable). */
export class BrowserActionError extends BatonError {
  override name = 'BrowserActionError'
  constructor(options: { tool: string; reason: string; cause?: unknown }) {
    super('BROWSER_ACTION_FAILED', `${options.tool} failed: ${options.reason}.`, {
      details: { tool: options.tool, reason: options.reason },
      cause: options.cause,
    })
  }
}

// A model may send a URL of thousands of characters; the message stays readable.
function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 150)}…${text.slice(-30)}` : text
}
