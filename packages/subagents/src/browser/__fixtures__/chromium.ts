import { existsSync } from 'node:fs'

/** Debian's chromium; the tests never download one. */
export const CHROMIUM_PATH = '/usr/bin/chromium'

/**
 * Whether the browser workspace tests can run here: they skip with a message where Chromium
 * is missing, and fail under `CI=true`, where they must run.
 *
 * @example
 * describe.runIf(chromiumAvailable())('browser workspaces', () => { ... })
 */
export function chromiumAvailable(): boolean {
  const present = existsSync(CHROMIUM_PATH)
  if (!present && process.env.CI === 'true') {
    throw new Error(
      `${CHROMIUM_PATH} is missing, and CI=true: the browser workspace tests must run.`,
    )
  }
  if (!present)
    console.warn(`Skipping the browser workspace tests: ${CHROMIUM_PATH} is not installed.`)
  return present
}

/** Checks a PNG's signature and reads its size from the IHDR chunk. */
export function pngSize(bytes: Buffer): { width: number; height: number } | undefined {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(signature)) return undefined
  if (bytes.subarray(12, 16).toString('ascii') !== 'IHDR') return undefined
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}
