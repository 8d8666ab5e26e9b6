import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import type { OriginPolicy } from './origin-policy'
import { type OriginProxy, startOriginProxy } from './origin-proxy'
import type { SharedBrowser } from './shared-browser'

/** A request the workspace refused, as the model is told of it. */
export type Refusal = {
  url: string
  reason: string /** Counts every refusal of the session, from 1. */
  seq: number
}

/**
 * One sub-agent's browser: a context of the shared Chromium (its own cookies, storage and
 * permissions), its tabs, and the proxy that keeps it to its allowed origins. Opened on the
 * first tool call; `close` ends the context and the proxy at once and is safe to call twice.
 */
export class BrowserSession {
  readonly context: BrowserContext
  readonly directory: string
  /** The last requests its proxy refused (at most 20). */
  readonly refusals: Refusal[]
  readonly pages: Page[] = []
  current: Page | undefined
  screenshots = 0
  readonly #proxy: OriginProxy
  #closing: Promise<void> | undefined

  private constructor(
    context: BrowserContext,
    proxy: OriginProxy,
    directory: string,
    refusals: Refusal[],
  ) {
    this.context = context
    this.refusals = refusals
    this.#proxy = proxy
    this.directory = directory
  }

  /**
   * Opens a context on `browser` whose every request goes through a proxy enforcing `policy`.
   *
   * @example
   * const session = await BrowserSession.open({ browser, policy, directory, timeoutMs: 15_000 })
   */
  static async open(options: {
    browser: SharedBrowser
    policy: OriginPolicy
    directory: string
    timeoutMs: number
  }): Promise<BrowserSession> {
    const refusals: Refusal[] = []
    let seq = 0
    const proxy = await startOriginProxy({
      policy: options.policy,
      onRefused: (url, reason) => {
        seq += 1
        refusals.push({ url, reason, seq })
        // The last few are enough to say why a page did not load.
        if (refusals.length > 20) refusals.shift()
      },
    })
    let context: BrowserContext
    try {
      const browser = await options.browser.get()
      context = await browser.newContext({
        // Loopback goes through the proxy too (Playwright removes Chromium's implicit bypass).
        proxy: { server: proxy.server },
        acceptDownloads: true,
        serviceWorkers: 'block',
        viewport: { width: 1280, height: 800 },
      })
    } catch (error) {
      await proxy.close()
      throw error
    }
    context.setDefaultTimeout(options.timeoutMs)
    context.setDefaultNavigationTimeout(options.timeoutMs)
    const session = new BrowserSession(context, proxy, options.directory, refusals)
    context.on('page', (page) => session.#track(page))
    return session
  }

  /** How many requests were refused so far. */
  get refusedCount(): number {
    return this.refusals.at(-1)?.seq ?? 0
  }

  /** The current tab, opened if there is none. */
  async page(): Promise<Page> {
    if (this.current && !this.current.isClosed()) return this.current
    this.current = this.pages.at(-1) ?? (await this.context.newPage())
    return this.current
  }

  close(): Promise<void> {
    this.#closing ??= this.context
      .close()
      .catch(() => {})
      .then(() => this.#proxy.close())
    return this.#closing
  }

  #track(page: Page): void {
    this.pages.push(page)
    page.on('close', () => {
      const index = this.pages.indexOf(page)
      if (index !== -1) this.pages.splice(index, 1)
      if (this.current === page) this.current = this.pages.at(-1)
    })
    page.on('download', async (download) => {
      const folder = path.join(this.directory, 'downloads')
      // Only the last part of the name the site suggests, so it cannot point elsewhere.
      const name = path.basename(download.suggestedFilename()).replace(/^\.+/, '_') || 'download'
      await mkdir(folder, { recursive: true })
      await download.saveAs(path.join(folder, name)).catch(() => {})
    })
  }
}
