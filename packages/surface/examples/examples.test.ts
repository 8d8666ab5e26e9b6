import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const packageFile = (name: string) => fileURLToPath(new URL(`../${name}`, import.meta.url))

/** The first ```ts block under `heading` in a Markdown file. */
async function codeBlock(file: string, heading = ''): Promise<string | undefined> {
  const text = await readFile(file, 'utf8')
  const from = heading ? text.indexOf(heading) : 0
  return /^```ts\n([\s\S]*?)^```$/m.exec(text.slice(Math.max(0, from)))?.[1]
}

// The file opens with a comment the Markdown says in prose instead.
const withoutHeader = (source: string) => source.replace(/^(\/\/.*\n)+/, '')

function runExample(name: string) {
  return run(
    process.execPath,
    ['--conditions=@baton/source', '--import', 'tsx', `examples/${name}`],
    { cwd: fileURLToPath(new URL('..', import.meta.url)), timeout: 60_000 },
  )
}

describe('examples/guide-quick-start', () => {
  it('is, line for line, the quick start of the surface guide', async () => {
    const shown = await codeBlock(packageFile('../../docs/surface.md'), '## Quick start')
    const example = await readFile(packageFile('examples/guide-quick-start.ts'), 'utf8')
    expect(shown).toBe(withoutHeader(example))
  })

  it('runs, routing to a message, a plain run and a swarm, and refusing a malformed swarm id', async () => {
    const { stdout } = await runExample('guide-quick-start.ts')
    expect(stdout).toMatch(/route: 'message'[\s\S]*to: \{ agentId: 'ops' \}/)
    expect(stdout).toMatch(/delegatedTo: 'analyst',\s+route: 'direct'/)
    expect(stdout).toMatch(/Analyst \(worker\): .*compare Q1 and Q2/)
    expect(stdout).toMatch(/success: false,[\s\S]*errorCode: 'INVALID_SWARM_ID'/)
  }, 90_000)
})

describe('examples/quick-start', () => {
  it('is, line for line, the example the README shows', async () => {
    const shown = await codeBlock(packageFile('README.md'))
    const example = await readFile(packageFile('examples/quick-start.ts'), 'utf8')
    expect(shown).toBe(withoutHeader(example))
  })

  it('runs as documented in the README, routing each mention its own way', async () => {
    const { stdout } = await runExample('quick-start.ts')
    expect(stdout).toMatch(/→ message to ops: Sent to Ops Orchestrator/)
    expect(stdout).toMatch(/ops received "review yesterday’s incidents" \(hop 0\)/)
    expect(stdout).toMatch(/→ swarm to swarm:research/)
    expect(stdout).toMatch(/swarm run done after \d+ events: .*Q1 and Q2/)
    expect(stdout).toMatch(/→ direct to analyst/)
    expect(stdout).toMatch(/@nobody → success: false, No agent "nobody"/)
  }, 90_000)
})
