import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createStaticRegistry } from '@baton/core'
import type { ToolSet } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentRecord, analystWallet } from '../__fixtures__/agents'
import { runPlan } from '../run'

let workspaceRoot: string
beforeAll(async () => {
  workspaceRoot = await mkdtemp(path.join(tmpdir(), 'mal-host-'))
})
afterAll(async () => {
  await rm(workspaceRoot, { recursive: true, force: true })
})

const registry = createStaticRegistry([agentRecord({ tools: ['write_file', 'list_files'] })])
const task = (saveAs: string, persona: string) => ({
  op: 'task',
  saveAs,
  agentWallet: analystWallet,
  prompt: 'Work',
  persona,
  isolation: 'workspace',
})
const write = (file: string) => `[[tool:write_file {"path":"${file}","content":"${file}"}]]`
const taskDirectories = async (root: string) =>
  (await readdir(path.join(root, '.subagents'))).filter((name) => name.startsWith('task-'))

describe('createDefaultHost', () => {
  it('gives every isolated task a directory of its own under a workspace root', async () => {
    const root = await mkdtemp(path.join(workspaceRoot, 'own-'))
    const result = await runPlan(
      {
        steps: [
          {
            op: 'fanout',
            saveAs: 'both',
            branches: [
              { id: 'one', steps: [task('a', write('one.txt'))] },
              { id: 'two', steps: [task('b', write('two.txt'))] },
            ],
          },
          task('listing', '[[tool:list_files {}]]'),
          { op: 'stop', output: '{{listing}}' },
        ],
      },
      { registry, workspaceRoot: root },
    )
    expect(result.error).toBeUndefined()
    expect(result.status).toBe('done')
    // The third task saw neither file: its directory is its own.
    expect(result.output).toMatch(/list_files → /)
    expect(result.output).not.toMatch(/one\.txt|two\.txt/)
    // The writers' files stay, each in a directory of its own; the lister wrote nothing and
    // left nothing behind.
    const directories = await taskDirectories(root)
    expect(directories).toHaveLength(2)
    const files = await Promise.all(
      directories.map((name) => readdir(path.join(root, '.subagents', name))),
    )
    expect(files.flat().sort()).toEqual(['one.txt', 'two.txt'])
    for (const [index, name] of directories.entries()) {
      const file = files[index]![0]!
      expect(await readFile(path.join(root, '.subagents', name, file), 'utf8')).toBe(file)
    }
  })

  it('gives a second run with the same root fresh directories too', async () => {
    const root = await mkdtemp(path.join(workspaceRoot, 'again-'))
    const plan = {
      steps: [task('listing', '[[tool:list_files {}]]'), { op: 'stop', output: '{{listing}}' }],
    }
    await runPlan({ steps: [task('w', write('left-over.txt'))] }, { registry, workspaceRoot: root })
    const result = await runPlan(plan, { registry, workspaceRoot: root })
    expect(result.status).toBe('done')
    expect(result.output).toMatch(/list_files → /)
    expect(result.output).not.toMatch(/left-over\.txt/)
    expect(await taskDirectories(root)).toHaveLength(1)
  })

  it('makes no directory for an isolated task that touches no file', async () => {
    const root = await mkdtemp(path.join(workspaceRoot, 'none-'))
    const result = await runPlan(
      { steps: [task('quiet', 'Be brief.'), { op: 'stop', output: '{{quiet}}' }] },
      { registry, workspaceRoot: root },
    )
    expect(result.status).toBe('done')
    expect(existsSync(path.join(root, '.subagents'))).toBe(false)
  })

  it('without a workspace root, works in a temporary directory that is gone after the step', async () => {
    const result = await runPlan(
      {
        steps: [
          task('a', `${write('kept.txt')} [[tool:list_files {}]]`),
          task('b', '[[tool:list_files {}]]'),
          { op: 'stop', output: { a: '{{a}}', b: '{{b}}' } },
        ],
      },
      { registry },
    )
    expect(result.status).toBe('done')
    const output = result.output as { a: string; b: string }
    expect(output.a).toMatch(/kept\.txt/)
    expect(output.b).not.toMatch(/kept\.txt/)
    const left = (await readdir(tmpdir())).filter((name) => name.startsWith('baton-mal-task-'))
    for (const name of left) {
      expect(await readdir(path.join(tmpdir(), name), { recursive: true })).not.toContain(
        'kept.txt',
      )
    }
  })

  it('fails a task that asks its caller a question with TASK_FAILED naming the question', async () => {
    const result = await runPlan(
      { steps: [task('stuck', '[[tool:ask_caller {"question":"Which region?"}]]')] },
      { registry, workspaceRoot },
    )
    expect(result.status).toBe('failed')
    expect(result.error).toMatchObject({ code: 'TASK_FAILED', path: 'steps[0]' })
    expect(result.error?.message).toMatch(/ended asking: .*Which region\?/)
  })
})

describe('createDefaultHost agentTools', () => {
  it('gives delegate and task agents the runtime tools it provides for them, charged to the step', async () => {
    const { tool } = await import('ai')
    const { z } = await import('zod')
    const { createDefaultHost } = await import('./create-default-host')
    const seen: { wallet: string; workspaceDir: string | undefined }[] = []
    const host = createDefaultHost({
      agentTools: (agent, { budget, workspaceDir }): ToolSet => {
        seen.push({ wallet: agent.wallet, workspaceDir })
        if (!agent.tools.includes('weather')) return {}
        return {
          weather: tool({
            inputSchema: z.object({ city: z.string() }),
            execute: async ({ city }) => {
              budget.charge({ calls: 1 }, { wallet: agent.wallet })
              return `sunny in ${city}`
            },
          }),
        }
      },
    })
    const withTool = createStaticRegistry([agentRecord({ tools: ['weather'] })])
    const ask = '[[tool:weather {"city":"Oslo"}]]'
    const result = await runPlan(
      {
        steps: [
          { op: 'delegate', saveAs: 'a', agentWallet: analystWallet, prompt: `Weather? ${ask}` },
          { op: 'task', saveAs: 'b', agentWallet: analystWallet, prompt: `Weather? ${ask}` },
          { op: 'stop', output: '{{a}} | {{b}}' },
        ],
      },
      { registry: withTool, host },
    )
    expect(result.error).toBeUndefined()
    expect(result.output).toMatch(/sunny in Oslo.*\|.*sunny in Oslo/)
    expect(seen.map((entry) => entry.wallet)).toEqual([analystWallet, analystWallet])
    // The task's turn is told its workspace directory; a delegate has none.
    expect(seen[0]?.workspaceDir).toBeUndefined()
    expect(seen[1]?.workspaceDir).toEqual(expect.any(String))
    // Two model calls and one tool charge per step.
    expect(result.usageByWallet[analystWallet]?.calls).toBe(6)
  })
})

describe('createDefaultHost and tools a card lists that a step is not given', () => {
  it('runs a delegate without the workspace tools its card lists, and gives them to a task', async () => {
    const { createDefaultHost } = await import('./create-default-host')
    const host = createDefaultHost({ workspaceRoot })
    const result = await runPlan(
      {
        steps: [
          { op: 'delegate', saveAs: 'a', agentWallet: analystWallet, prompt: 'Look' },
          { ...task('b', 'Writer'), prompt: `Write ${write('note.txt')}` },
          { op: 'stop', output: '{{a}} | {{b}}' },
        ],
      },
      { registry, host },
    )
    expect(result.error).toBeUndefined()
    expect(result.status).toBe('done')
    expect(String(result.output)).toMatch(/write_file/)
  })

  it('still refuses a tool that nothing in Baton grants, naming it', async () => {
    const { createDefaultHost } = await import('./create-default-host')
    const result = await runPlan(
      { steps: [{ op: 'delegate', saveAs: 'a', agentWallet: analystWallet, prompt: 'Look' }] },
      {
        registry: createStaticRegistry([agentRecord({ tools: ['read_file', 'weather'] })]),
        host: createDefaultHost(),
      },
    )
    expect(result.status).toBe('failed')
    expect(result.error).toMatchObject({ code: 'UNKNOWN_TOOL' })
    expect(result.error?.message).toContain('"weather"')
  })
})
