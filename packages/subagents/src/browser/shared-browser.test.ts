import { spawn } from 'node:child_process'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { fromSourceArgs, waitFor } from '@baton/testing/processes'
import { describe, expect, it } from 'vitest'
import { isProcessAlive } from '../workspace/process-tree'
import { CHROMIUM_PATH, chromiumAvailable } from './__fixtures__/chromium'

const host = fileURLToPath(new URL('./__fixtures__/signalled-host.ts', import.meta.url))

/** Chromium's folders in `folder` (its singleton socket's: `org.chromium.Chromium.*`). */
const chromiumFolders = async (folder: string) =>
  (await readdir(folder)).filter((name) => name.startsWith('org.chromium.'))

describe.runIf(chromiumAvailable())('the shared browser', () => {
  it('leaves the host’s signals to the host: at SIGINT the host shuts down by itself and closes the browser, which leaves nothing behind', async () => {
    // Chromium's own temporary folder (its singleton socket) goes in one of the test's own.
    const temporary = await mkdtemp(path.join(tmpdir(), 'baton-shared-browser-'))
    try {
      const child = spawn(process.execPath, [...fromSourceArgs(host), host, CHROMIUM_PATH], {
        env: { ...process.env, TMPDIR: temporary },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let output = ''
      child.stdout.on('data', (chunk) => {
        output += chunk
      })
      child.stderr.on('data', (chunk) => {
        output += chunk
      })
      const exited = new Promise<number | string>((resolve) =>
        child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
      )
      const browserPid = await waitFor(() => Number(/ready (\d+)/.exec(output)?.[1]) || undefined, {
        timeoutMs: 60_000,
        what: `the host to open a page (it printed: ${output})`,
      })
      expect(await chromiumFolders(temporary)).toHaveLength(1)
      child.kill('SIGINT')
      // The host's shutdown ran to its end: Playwright's handler neither closed the browser
      // under it nor ended the process (it exited 130 before the host had closed anything).
      expect(await exited).toBe(0)
      expect(output).toContain('connected at shutdown: true')
      expect(output).toContain('closed cleanly')
      expect(isProcessAlive(browserPid)).toBe(false)
      // Closed, not killed: Chromium removed its temporary folder itself.
      expect(await chromiumFolders(temporary)).toEqual([])
    } finally {
      await rm(temporary, { recursive: true, force: true })
    }
  }, 90_000)
})
