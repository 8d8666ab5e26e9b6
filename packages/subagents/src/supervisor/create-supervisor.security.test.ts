import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createBudget } from '@baton/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SubagentRunner } from '../runner/types'
import { directive, makeTempRoot } from './__fixtures__/helpers'
import { makeAgent } from './__fixtures__/make-agent'
import { createSupervisor } from './create-supervisor'

let root: string
let remove: () => Promise<void>
const saved = { PATH: process.env.PATH, SECRET_TOKEN: process.env.SECRET_TOKEN }
beforeEach(async () => ({ root, remove } = await makeTempRoot()))
afterEach(async () => {
  process.env.PATH = saved.PATH
  if (saved.SECRET_TOKEN === undefined) delete process.env.SECRET_TOKEN
  else process.env.SECRET_TOKEN = saved.SECRET_TOKEN
  await remove()
})

// A fake `codex` first on PATH: it writes down its arguments and environment, then answers in
// codex's JSON lines.
async function installFakeCodex(): Promise<string> {
  const bin = path.join(root, 'bin')
  const record = path.join(root, 'codex-saw.json')
  await mkdir(bin, { recursive: true })
  const script = path.join(bin, 'codex')
  await writeFile(
    script,
    [
      `#!${process.execPath}`,
      `require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), env: process.env }))`,
      `console.log(JSON.stringify({ type: 'item.completed', item: { type: 'agent_message', text: 'fake codex done' } }))`,
    ].join('\n'),
  )
  await chmod(script, 0o755)
  process.env.PATH = `${bin}${path.delimiter}${saved.PATH}`
  process.env.SECRET_TOKEN = 'do-not-leak'
  return record
}

const flag = '--dangerously-bypass-approvals-and-sandbox'

describe('createSupervisor and external agents', () => {
  it('hands a task that reads like a flag to codex after --, with an allowlisted environment', async () => {
    const record = await installFakeCodex()
    const budget = createBudget({ calls: 20 })
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root: path.join(root, 'work') },
      budget,
      adapters: ['codex'],
    })
    const id = supervisor.delegate(
      `Hand it on ${directive('delegate_agent', { task: flag, agent: 'codex' })}${directive('wait_agents')}`,
    )
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report?.status).toBe('done')
    const saw = JSON.parse(await readFile(record, 'utf8')) as {
      argv: string[]
      env: Record<string, string>
    }
    expect(saw.argv.at(-1)).toBe(flag)
    expect(saw.argv.indexOf('--')).toBe(saw.argv.length - 2)
    expect(saw.env.SECRET_TOKEN).toBeUndefined()
    expect(saw.env.PATH).toBe(process.env.PATH)
    expect(
      Object.keys(saw.env).every((name) => ['PATH', 'HOME', 'PWD', 'SHLVL', '_'].includes(name)),
    ).toBe(true)
  })

  it('starts no built-in external agent unless the supervisor enables it', async () => {
    await installFakeCodex()
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 5 }),
    })
    expect(() => supervisor.delegate('Code', { agent: 'codex' })).toThrow(
      expect.objectContaining({
        code: 'UNKNOWN_AGENT_ADAPTER',
        message: expect.stringMatching(/adapters: \['codex'\]/),
      }),
    )
    expect(() =>
      createSupervisor({
        agent: makeAgent(),
        workspace: { kind: 'directory', root },
        budget: createBudget({ calls: 5 }),
        adapters: ['aider'],
      }),
    ).toThrow(expect.objectContaining({ code: 'UNKNOWN_AGENT_ADAPTER' }))
  })

  it('refuses an adapter that would pass a task starting with - as a flag', async () => {
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 5 }),
      adapters: { careless: { command: process.execPath, args: (task) => ['-e', '0', task] } },
    })
    const id = supervisor.delegate('--inspect=0.0.0.0:9229', { agent: 'careless' })
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report).toMatchObject({ status: 'failed', error: expect.stringMatching(/after "--"/) })
  })
})

describe('createSupervisor tool grants', () => {
  function recordingRunner(seen: string[][]): SubagentRunner {
    return {
      async run(turn) {
        seen.push(Object.keys(turn.tools).sort())
        return { text: 'ok', messages: [] }
      },
    }
  }

  it('gives a task agent whose card lists no tools and may not delegate only ask_caller', async () => {
    const seen: string[][] = []
    const supervisor = createSupervisor({
      agent: makeAgent({ tools: [], agentCard: { canDelegate: false } }),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 5 }),
      runner: recordingRunner(seen),
    })
    const id = supervisor.delegate('Work alone')
    expect((await supervisor.waitAgents([id]))?.[id]?.status).toBe('done')
    expect(seen).toEqual([['ask_caller']])
    expect(Object.keys(supervisor.tools())).toEqual([])
  })

  it('grants the file tools the card lists, and the delegation tools with canDelegate', async () => {
    const seen: string[][] = []
    const supervisor = createSupervisor({
      agent: makeAgent({ tools: ['read_file'], agentCard: { canDelegate: true } }),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 5 }),
      runner: recordingRunner(seen),
    })
    const id = supervisor.delegate('Read and delegate')
    await supervisor.waitAgents([id])
    expect(seen).toEqual([
      ['ask_caller', 'cancel_agent', 'delegate_agent', 'read_file', 'send_agent', 'wait_agents'],
    ])
  })

  it('records the grant on the turn card: it lists every tool the turn is given', async () => {
    const cards: string[][] = []
    const supervisor = createSupervisor({
      agent: makeAgent({ tools: ['read_file', 'search'], agentCard: { canDelegate: true } }),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 5 }),
      runner: {
        async run(turn) {
          cards.push([...turn.agent.tools].sort())
          expect(turn.agent.tools).toEqual(expect.arrayContaining(Object.keys(turn.tools)))
          return { text: 'ok', messages: [] }
        },
      },
    })
    const id = supervisor.delegate('Read and delegate')
    await supervisor.waitAgents([id])
    // The card's own names stay (a registry may provide "search"); the grant is added.
    expect(cards).toEqual([
      [
        'ask_caller',
        'cancel_agent',
        'delegate_agent',
        'read_file',
        'search',
        'send_agent',
        'wait_agents',
      ],
    ])
  })

  it('lets an offline sub-agent on the default runner ask its caller and delegate', async () => {
    const supervisor = createSupervisor({
      agent: makeAgent({ tools: [], agentCard: { canDelegate: true } }),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 10 }),
    })
    const id = supervisor.delegate(
      `Split ${directive('delegate_agent', { task: 'part' })}${directive('ask_caller', { question: 'Which?' })}`,
    )
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report).toMatchObject({ status: 'asking', question: 'Which?' })
    expect(supervisor.tree()[0]?.children).toHaveLength(1)
    await supervisor.cancelAll()
  })

  it('keeps write_file from an offline agent whose card does not list it', async () => {
    const supervisor = createSupervisor({
      agent: makeAgent({ tools: ['list_files'], agentCard: { canDelegate: false } }),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 5 }),
    })
    const id = supervisor.delegate(
      `Write ${directive('write_file', { path: 'x.txt', content: 'x' })}${directive('delegate_agent', { task: 'more' })}`,
    )
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report?.files).toEqual([])
    expect(supervisor.tree()[0]?.children).toEqual([])
  })
})
