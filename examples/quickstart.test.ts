import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))

describe('examples/quickstart', () => {
  it('runs what `pnpm start` runs: a plan, sub-agents and the loop guard', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', '--conditions=@baton/source', 'examples/quickstart.ts'],
      { cwd: root, timeout: 110_000 },
    )
    expect(stdout).toContain('status: done')
    expect(stdout).toMatch(/unregistered wallet → failed: UNREGISTERED_AGENT/)
    expect(stdout).toMatch(/sub-1: done, 1 call/)
    expect(stdout).toMatch(/sub-2: done, 1 call/)
    expect(stdout).toContain('parent spent: 2 call(s)')
    expect(stdout).toContain('refused: LOOP_GUARD_ESCALATED')
  })
})
