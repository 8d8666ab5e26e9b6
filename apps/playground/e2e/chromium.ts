import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

/** Debian's chromium; the browser tests never download one. */
export const chromiumPath = '/usr/bin/chromium'

/** Whether the browser tests can run here; under CI=true they must. */
export function chromiumAvailable(): boolean {
  const present = existsSync(chromiumPath)
  if (!present && process.env.CI === 'true')
    throw new Error(`${chromiumPath} is missing, and CI=true: the browser tests must run in CI.`)
  if (!present)
    console.warn(`Skipping the playground browser tests: ${chromiumPath} is not installed.`)
  return present
}

/**
 * Headless chromium with the flags the repository's browser tests use (no sandbox, GPU,
 * background networking, updates, sync or QUIC).
 *
 * @example
 * const browser = await launchChromium()
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  })
}
