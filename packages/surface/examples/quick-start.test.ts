import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const packageFile = (name: string) => fileURLToPath(new URL(`../${name}`, import.meta.url))

describe('examples/quick-start', () => {
  it('is, line for line, the example the README shows', async () => {
    const readme = await readFile(packageFile('README.md'), 'utf8')
    const shown = /^```ts\n([\s\S]*?)^```$/m.exec(readme)?.[1]
    const example = await readFile(packageFile('examples/quick-start.ts'), 'utf8')
    // The file opens with a comment the README says in prose instead.
    expect(shown).toBe(example.replace(/^(\/\/.*\n)+/, ''))
  })

  it('runs as documented in the README, routing each mention its own way', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--conditions=@baton/source', '--import', 'tsx', 'examples/quick-start.ts'],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), timeout: 60_000 },
    )
    expect(stdout).toMatch(/→ message to ops: Sent to Ops Orchestrator/)
    expect(stdout).toMatch(/ops received "review yesterday’s incidents" \(hop 0\)/)
    expect(stdout).toMatch(/→ swarm to swarm:research/)
    expect(stdout).toMatch(/swarm run done after \d+ events: .*Q1 and Q2/)
    expect(stdout).toMatch(/→ direct to analyst/)
    expect(stdout).toMatch(/@nobody → success: false, No agent "nobody"/)
  })
})
