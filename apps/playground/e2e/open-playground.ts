import { mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { inject } from 'vitest'
import { launchChromium } from './chromium'
import { type ServerProcess, startServerProcess } from './server-process'

/** Where the browser tests write the screenshots a person looks at. */
export const screenshots = fileURLToPath(new URL('./screenshots', import.meta.url))

/**
 * What a browser test of the playground runs on: the real server serving this test run's
 * build of the playground (see global-setup.ts), headless Chromium, and one page whose
 * uncaught errors are pushed to `pageErrors` (the screenshots folder exists too). A server
 * started for a browser that then fails to launch is stopped again.
 *
 * @example
 * ;({ server, browser, page } = await openPlayground({ pageErrors }))
 * await page.goto(`${server.baseUrl}/#/agents`)
 */
export async function openPlayground(options: {
  pageErrors: string[]
  /** More environment for the server (e.g. `BATON_RUNTIME_KEY`). */
  env?: Record<string, string>
  viewport?: { width: number; height: number }
}): Promise<{ server: ServerProcess; browser: Browser; page: Page }> {
  await mkdir(screenshots, { recursive: true })
  const server = await startServerProcess({
    playgroundDir: inject('playgroundDir'),
    ...(options.env ? { env: options.env } : {}),
  })
  try {
    const browser = await launchChromium()
    const page = await browser.newPage({
      viewport: options.viewport ?? { width: 1280, height: 900 },
    })
    page.on('pageerror', (error) => options.pageErrors.push(error.message))
    return { server, browser, page }
  } catch (error) {
    await server.dispose()
    throw error
  }
}
