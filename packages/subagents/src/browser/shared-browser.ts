import { randomUUID } from 'node:crypto'
import type { Browser } from 'playwright-core'
import { childWithArgument } from '../workspace/process-tree'
import { WorkspaceUnavailableError } from '../workspace/workspace-errors'
import { withDisabledFeatures } from './chromium-features'

/** The flags every Chromium of a browser workspace runs with. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
]

/** One Chromium, launched on first use and shared by every context of a provider. */
export type SharedBrowser = {
  get(): Promise<Browser>
  /** The browser process, once launched (Linux). */
  readonly pid: number | undefined
  close(): Promise<void>
}

/**
 * A Chromium launched once, the first time a workspace needs it, from `executablePath` (never
 * downloaded). A launch that fails is not cached: the next call tries again.
 *
 * @example
 * const shared = createSharedBrowser({ executablePath: '/usr/bin/chromium', launchTimeoutMs: 30_000 })
 * const context = await (await shared.get()).newContext()
 */
export function createSharedBrowser(options: {
  executablePath: string
  args: readonly string[]
  launchTimeoutMs: number
}): SharedBrowser {
  let launching: Promise<Browser> | undefined
  let pid: number | undefined
  let closed = false
  // Given only to this browser, so its process can be found among the caller's children.
  const marker = `--baton-browser=${randomUUID()}`
  const launch = async (): Promise<Browser> => {
    let playwright: typeof import('playwright-core')
    try {
      playwright = await import('playwright-core')
    } catch (cause) {
      throw new WorkspaceUnavailableError({
        kind: 'browser',
        reason: `the package playwright-core is not installed (${(cause as Error).message})`,
      })
    }
    const browser = await playwright.chromium
      .launch({
        executablePath: options.executablePath,
        // One --disable-features, merged: Chromium reads only the last (see chromium-features.ts).
        args: withDisabledFeatures([...CHROMIUM_FLAGS, ...options.args, marker]),
        timeout: options.launchTimeoutMs,
        // The host's signals are the host's: Playwright's own handlers would close the browser
        // at a signal (killing it when the host's shutdown closes it too) and exit the process
        // at SIGINT, cutting the host's shutdown short. The provider's `close` ends it; a host
        // that ends without it takes the browser with it (Playwright's exit hook, the pipe).
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      })
      .catch((cause: Error) => {
        throw new WorkspaceUnavailableError({
          kind: 'browser',
          reason: `Chromium (${options.executablePath}) did not start: ${cause.message.split('\n')[0]}`,
        })
      })
    pid = childWithArgument(process.pid, marker)
    if (closed) await browser.close()
    return browser
  }
  return {
    get() {
      if (closed) {
        return Promise.reject(
          new WorkspaceUnavailableError({ kind: 'browser', reason: 'its provider was closed' }),
        )
      }
      launching ??= launch().catch((error: unknown) => {
        launching = undefined
        throw error
      })
      return launching
    },
    get pid() {
      return pid
    },
    async close() {
      closed = true
      const browser = await launching?.catch(() => undefined)
      await browser?.close()
    },
  }
}
