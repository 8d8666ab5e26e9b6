import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))

// The command the file's own header tells a reader to run, so the two cannot drift apart.
async function documentedCommand(): Promise<string[]> {
  const source = await readFile(new URL('./quickstart.ts', import.meta.url), 'utf8')
  const line = /^ \*\s+(node .*examples\/quickstart\.ts)$/m.exec(source)?.[1]
  if (!line)
    throw new Error('examples/quickstart.ts says no `node … examples/quickstart.ts` command')
  return line.split(/\s+/)
}

describe('examples/quickstart', () => {
  it('runs as its header says: a plan, sub-agents and the loop guard', async () => {
    const [command, ...args] = await documentedCommand()
    expect(command).toBe('node')
    const { stdout } = await run(process.execPath, args, { cwd: root, timeout: 110_000 })
    expect(stdout).toContain('status: done')
    expect(stdout).toMatch(/unregistered wallet → failed: UNREGISTERED_AGENT/)
    expect(stdout).toMatch(/sub-1: done, 1 call/)
    expect(stdout).toMatch(/sub-2: done, 1 call/)
    expect(stdout).toContain('parent spent: 2 call(s)')
    expect(stdout).toContain('refused: LOOP_GUARD_ESCALATED')
  })
})
