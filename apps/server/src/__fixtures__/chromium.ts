import { existsSync } from 'node:fs'

/** Debian's chromium; the tests never download one. */
export const CHROMIUM = '/usr/bin/chromium'

/**
 * Whether a test that drives Chromium can run here: it is skipped with a message naming
 * `what` where Chromium is missing, and fails under `CI=true`, where it must run.
 *
 * @example
 * describe.runIf(chromiumAvailable('the run files tests'))('GET /api/v1/runs/:id/files/*', ...)
 */
export function chromiumAvailable(what: string): boolean {
  if (existsSync(CHROMIUM)) return true
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing, and CI=true.`)
  console.warn(`Skipping ${what}: ${CHROMIUM} is not installed.`)
  return false
}
