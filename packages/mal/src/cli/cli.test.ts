import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentRecord, analystWallet, reviewerWallet } from '../__fixtures__/agents'
import { type RegistryServer, startRegistryServer } from '../__fixtures__/registry-server'
import { runTsx } from '../__fixtures__/run-tsx'
import { seedPlan as seed } from '../__fixtures__/seed-plan'

const cli = fileURLToPath(new URL('../cli.ts', import.meta.url))
let directory: string
let registry: RegistryServer
const file = (name: string) => path.join(directory, name)
const mal = (args: string[], stdin?: string) =>
  runTsx(cli, args, { cwd: directory, ...(stdin === undefined ? {} : { stdin }) })

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'mal-cli-'))
  registry = await startRegistryServer({ [analystWallet]: { kind: 'agent', body: agentRecord() } })
  await writeFile(file('seed.yaml'), seed)
  await writeFile(
    file('broken.yaml'),
    `inputs: { request: string }
steps:
  - op: delegate
    saveAs: a
    agentWallet: "0x123"
    model: openai:gpt-4o
    prompt: "{{nope}}"
`,
  )
  await writeFile(
    file('ask.yaml'),
    `inputs: { topic: string }
steps:
  - op: delegate
    saveAs: review
    agentWallet: "${reviewerWallet}"
    prompt: "Review {{topic}}"
  - op: ask_user
    saveAs: verdict
    question: "Accept {{review}}?"
  - op: stop
    output: { verdict: "{{verdict}}", review: "{{review}}" }
`,
  )
  await writeFile(
    file('agents.json'),
    JSON.stringify([
      agentRecord({
        id: 'reviewer',
        wallet: reviewerWallet,
        name: 'Reviewer',
        persona: '[[answer:looks fine]]',
      }),
    ]),
  )
})
afterAll(async () => {
  await registry.close()
  await rm(directory, { recursive: true, force: true })
})

describe('mal check', { timeout: 120_000 }, () => {
  it('accepts a valid plan', async () => {
    const { code, stdout } = await mal(['check', 'seed.yaml'])
    expect(stdout).toBe('seed.yaml: ok (2 top-level steps)\n')
    expect(code).toBe(0)
  })

  it('lists every problem with file:line:column and path, and exits 1', async () => {
    const { code, stderr } = await mal(['check', 'broken.yaml'])
    expect(code).toBe(1)
    expect(stderr).toContain('broken.yaml:5:18 steps[0].agentWallet: Malformed wallet "0x123"')
    expect(stderr).toMatch(/broken\.yaml:6:12 steps\[0\]\.model: .*models_call/)
    expect(stderr).toMatch(/broken\.yaml:7:13 steps\[0\]\.prompt: \{\{nope\}\} names "nope"/)
    expect(stderr).toContain('broken.yaml: 3 problem(s)')
  })

  it('refuses a stop reading a value saved in one branch of an if, at its line', async () => {
    await writeFile(
      file('approve.yaml'),
      `inputs: { risky: string }
steps:
  - op: if
    cond: "{{risky}} == 'yes'"
    then:
      - op: ask_user
        saveAs: approve
        question: "Go ahead?"
  - op: stop
    output: "{{approve}}"
`,
    )
    const { code, stderr } = await mal(['check', 'approve.yaml'])
    expect(code).toBe(1)
    expect(stderr).toMatch(
      /approve\.yaml:10:13 steps\[1\]\.output: \{\{approve\}\} reads "approve", which may have no value here: only the then branch of the if at steps\[0\] saves it/,
    )
  })
})

describe('mal run', { timeout: 120_000 }, () => {
  it('runs the seed plan against a registry, showing each step with its spend', async () => {
    const { code, stdout, stderr } = await mal([
      'run',
      'seed.yaml',
      '--input',
      'request=Refund order 1182 twice',
      '--registry',
      registry.url,
      '--budget-cost',
      '0.5',
    ])
    expect(stderr).toMatch(/▶ running risk-review/)
    expect(stderr).toContain(`→ steps[0] delegate analysis · ${analystWallet}`)
    expect(stderr).toMatch(
      /✓ steps\[0\] delegate analysis · 1 call · \d+ tokens · \$0\.\d+ · 0x1111/,
    )
    expect(stderr).toMatch(/■ done · 1 call/)
    // The delegate's text is shown as its model streams it, above its finished line.
    expect(stderr).toMatch(/│ Risk Analyst \(specialist\): [\s\S]*✓ steps\[0\] delegate/)
    expect(stderr).toMatch(/ms \(first text \d+ ms\)/)
    expect(stdout).toMatch(/^Risk Analyst \(specialist\): .*Refund order 1182 twice/)
    expect(code).toBe(0)
  })

  it('exits non-zero and shows the step error when the agent is not registered', async () => {
    const { code, stderr } = await mal([
      'run',
      'ask.yaml',
      '--input',
      'topic=x',
      '--registry',
      registry.url,
    ])
    expect(stderr).toMatch(/✗ steps\[0\] delegate review · UNREGISTERED_AGENT/)
    expect(stderr).toMatch(/■ failed/)
    expect(code).toBe(1)
  })

  it('answers ask_user from stdin with a local agents file, and exits 2 when no answer comes', async () => {
    const answered = await mal(
      ['run', 'ask.yaml', '--input', 'topic=refunds', '--agents', 'agents.json'],
      'yes\n',
    )
    expect(answered.stderr).toContain('? Accept looks fine?')
    expect(JSON.parse(answered.stdout)).toEqual({ verdict: 'yes', review: 'looks fine' })
    expect(answered.code).toBe(0)
    const unanswered = await mal(
      ['run', 'ask.yaml', '--input', 'topic=refunds', '--agents', 'agents.json'],
      '',
    )
    expect(unanswered.stderr).toContain('Paused without an answer to: Accept looks fine?')
    expect(unanswered.code).toBe(2)
  })

  it('cancels the run on Ctrl-C (SIGINT) and exits 130', async () => {
    await writeFile(
      file('slow.yaml'),
      'steps:\n  - op: models_call\n    saveAs: slow\n    model: offline:default\n    prompt: "[[sleep:60000]]"\n',
    )
    const { code, stderr } = await runTsx(cli, ['run', 'slow.yaml'], {
      cwd: directory,
      onStart: (child) => {
        // Interrupt once the step is under way.
        child.stderr?.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('→ steps[0]')) child.kill('SIGINT')
        })
      },
    })
    expect(stderr).toMatch(/✗ steps\[0\] models_call slow · CANCELLED/)
    expect(stderr).toMatch(/■ cancelled/)
    expect(code).toBe(130)
  })

  it('refuses bad usage with exit 64', async () => {
    expect((await mal(['launch', 'seed.yaml'])).code).toBe(64)
    const badInput = await mal(['run', 'seed.yaml', '--input', 'oops'])
    expect(badInput.stderr).toMatch(/must look like name=value/)
    expect(badInput.code).toBe(64)
    await writeFile(file('bad-agents.json'), JSON.stringify([{ id: 'x', wallet: '0x12' }]))
    const badAgents = await mal(['run', 'seed.yaml', '--agents', 'bad-agents.json'])
    expect(badAgents.stderr).toMatch(
      /Bad agents in bad-agents\.json: .*\[0\]\.wallet: Malformed wallet "0x12"/,
    )
    expect(badAgents.code).toBe(64)
  })
})
