import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createBudget, createModelRegistry, createOfflineModel } from '@baton/core'
import { countAbortControllers } from '@baton/testing/abort-controllers'
import { waitFor } from '@baton/testing/processes'
import { tool } from 'ai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { SubagentRunner, SubagentTurn } from '../runner/types'
import { createDirectoryWorkspace } from '../workspace/create-directory-workspace'
import { directive, makeTempRoot } from './__fixtures__/helpers'
import { makeAgent } from './__fixtures__/make-agent'
import { createSupervisor } from './create-supervisor'
import type { SupervisorEvents } from './types'

let root: string
let remove: () => Promise<void>
beforeEach(async () => ({ root, remove } = await makeTempRoot()))
afterEach(() => remove())

const listFiles = directive('list_files')

function supervise(limits: Parameters<typeof createBudget>[0] = { calls: 100 }) {
  const budget = createBudget(limits, { name: 'lead' })
  const supervisor = createSupervisor({
    agent: makeAgent(),
    workspace: { kind: 'directory', root },
    budget,
  })
  return { budget, supervisor }
}

describe('createSupervisor', () => {
  it('runs three children in parallel with their own budgets, and the parent pays their sum', async () => {
    // Each child has a cost of its own: a model call first reserves what it may cost, and a
    // child's own cost bounds that, so siblings never crowd each other out of the parent's.
    const { budget, supervisor } = supervise({ calls: 40, cost: 1 })
    const first = supervisor.delegate(
      `Write the plan ${directive('write_file', { path: 'plan.md', content: '1. ship' })}`,
      { budget: { calls: 3, cost: 0.01 } },
    )
    const second = supervisor.delegate(`Survey the folder ${listFiles}${listFiles}`, {
      budget: { calls: 5, cost: 0.02 },
    })
    const third = supervisor.delegate('Summarize the release notes', {
      budget: { calls: 2, cost: 0.01, seconds: 30 },
    })
    const reports = await supervisor.waitAgents()
    expect(Object.keys(reports ?? {})).toEqual([first, second, third])
    const [a, b, c] = [reports![first]!, reports![second]!, reports![third]!]
    expect([a.status, b.status, c.status]).toEqual(['done', 'done', 'done'])
    expect(a.result).toContain('write_file')
    expect(a.files).toEqual(['plan.md'])
    expect(await readFile(path.join(a.directory, 'plan.md'), 'utf8')).toBe('1. ship')
    expect(a.directory).toBe(path.join(root, '.subagents', first))
    expect(b.result).toContain('list_files')
    expect(c.result).toContain('Summarize the release notes')
    expect([a.modelCalls, b.modelCalls, c.modelCalls]).toEqual([2, 3, 1])
    const spent = budget.spent()
    expect(spent.calls).toBe(6)
    expect(spent.costUsd).toBeCloseTo(a.costUsd + b.costUsd + c.costUsd, 12)
    expect(spent.costUsd).toBeGreaterThan(0)
    expect(budget.spentByWallet()[makeAgent().wallet]?.calls).toBe(6)
  })

  it('makes no abort signal for sub-agents whose model never reads one', async () => {
    const made = countAbortControllers()
    try {
      const offline = createOfflineModel()
      // The offline model, handed only what it answers from (naming `abortSignal` reads it).
      const blind: ReturnType<typeof createOfflineModel> = {
        ...offline,
        doGenerate: (call) => offline.doGenerate({ prompt: call.prompt }),
      }
      const supervisor = createSupervisor({
        agent: makeAgent(),
        workspace: { kind: 'directory', root },
        budget: createBudget({ calls: 100 }),
        models: createModelRegistry({ providers: { offline: () => blind } }),
      })
      const ids = Array.from({ length: 20 }, (_, index) =>
        supervisor.delegate(`[[answer:part ${index}]]`),
      )
      const reports = (await supervisor.waitAgents(ids)) ?? {}
      expect(Object.values(reports).map((report) => report.status)).toEqual(ids.map(() => 'done'))
      expect(reports[ids[7]!]?.result).toBe('part 7')
      expect(made.count).toBe(0)
    } finally {
      made.restore()
    }
  })

  it("lets two supervisors share one budget, naming their sub-agents' budgets apart", async () => {
    const budget = createBudget({ calls: 10 }, { name: 'lead' })
    const names: string[] = []
    budget.onCharge((event) => names.push(event.budget))
    const reports = await Promise.all(
      ['a', 'b'].map(async (folder) => {
        const supervisor = createSupervisor({
          agent: makeAgent(),
          workspace: { kind: 'directory', root: path.join(root, folder) },
          budget,
        })
        const id = supervisor.delegate('Report')
        return (await supervisor.waitAgents([id]))?.[id]
      }),
    )
    expect(reports.map((report) => report?.status)).toEqual(['done', 'done'])
    expect(names.sort()).toEqual(['lead/sub-1', 'lead/sub-1#2'])
  })

  it('refuses at delegate a budget larger than what the caller has left, and makes nothing', async () => {
    const { supervisor } = supervise({ calls: 5 })
    expect(() => supervisor.delegate('Too big', { budget: { calls: 6 } })).toThrow(
      expect.objectContaining({ code: 'BUDGET_EXCEEDED' }),
    )
    expect(supervisor.tree()).toEqual([])
    expect(existsSync(path.join(root, '.subagents'))).toBe(false)
  })

  it('stops a child that tries to spend past its budget with budget-exhausted', async () => {
    const { budget, supervisor } = supervise({ calls: 50 })
    const id = supervisor.delegate(`Keep looking ${listFiles.repeat(8)}`, { budget: { calls: 2 } })
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report?.status).toBe('budget-exhausted')
    expect(report?.error).toMatch(/calls/)
    expect(report?.modelCalls).toBeLessThanOrEqual(2)
    expect(budget.spent().calls).toBe(report?.modelCalls)
    expect(budget.aborted).toBe(false)
  })

  it('never overspends the parent when 100 children race for it', async () => {
    const { budget, supervisor } = supervise({ calls: 150 })
    const ids = Array.from({ length: 100 }, (_, index) =>
      supervisor.delegate(`Part ${index} ${listFiles.repeat(4)}`),
    )
    const reports = await supervisor.waitAgents(ids)
    const statuses = Object.values(reports ?? {}).map((report) => report.status)
    expect(budget.spent().calls).toBeLessThanOrEqual(150)
    expect(statuses).toContain('budget-exhausted')
    const total = Object.values(reports ?? {}).reduce((sum, report) => sum + report.modelCalls, 0)
    expect(total).toBe(budget.spent().calls)
  })

  it('never overspends the parent’s cost when 100 children race for it', async () => {
    const { budget, supervisor } = supervise({ calls: 1000, cost: 0.002 })
    const ids = Array.from({ length: 100 }, (_, index) =>
      supervisor.delegate(`Part ${index} ${listFiles.repeat(4)}`, { budget: { cost: 0.0001 } }),
    )
    const reports = Object.values((await supervisor.waitAgents(ids)) ?? {})
    const spent = budget.spent()
    expect(spent.costUsd).toBeGreaterThan(0)
    expect(spent.costUsd).toBeLessThanOrEqual(0.002 + 1e-12)
    expect(reports.map((report) => report.status)).toContain('budget-exhausted')
    for (const report of reports) expect(report.costUsd).toBeLessThanOrEqual(0.0001 + 1e-12)
    const total = reports.reduce((sum, report) => sum + report.costUsd, 0)
    expect(total).toBeCloseTo(spent.costUsd, 12)
  })

  it('stops a model child whose seconds run out with timed-out', async () => {
    const { supervisor } = supervise()
    const id = supervisor.delegate('[[sleep:20000]] Slow thinking', { budget: { seconds: 0.3 } })
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report?.status).toBe('timed-out')
    expect(report?.error).toMatch(/ran out of time/)
    expect(report?.modelCalls).toBe(0)
    // Its seconds count from its start to the end of its turn: about the 0.3 it was given
    // (timers may fire a millisecond early, hence the margin).
    expect(report?.seconds).toBeGreaterThanOrEqual(0.25)
    const later = await supervisor.report(id)
    expect(later.seconds).toBe(report?.seconds)
  })

  it('lets a child ask a question, and go on with the answer', async () => {
    const { supervisor } = supervise()
    const questions: SupervisorEvents['agent-question'][] = []
    supervisor.on('agent-question', (event) => questions.push(event))
    const id = supervisor.delegate(directive('ask_caller', { question: 'Which colour?' }))
    const asked = (await supervisor.waitAgents([id]))?.[id]
    expect(asked).toMatchObject({ status: 'asking', question: 'Which colour?' })
    expect(questions).toEqual([
      expect.objectContaining({ id, question: 'Which colour?', depth: 1 }),
    ])
    supervisor.sendAgent(id, 'teal')
    const answered = (await supervisor.waitAgents([id]))?.[id]
    expect(answered?.status).toBe('done')
    expect(answered?.question).toBeUndefined()
    expect(answered?.result).toContain('teal')
  })

  it('lends the caller its workspace with share, and refuses the caller its files meanwhile', async () => {
    const workspace = createDirectoryWorkspace({ root })
    await workspace.writeFile('readme.md', 'before')
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace,
      budget: createBudget({ calls: 10 }),
    })
    const id = supervisor.delegate(
      `[[sleep:300]] ${directive('write_file', { path: 'shared.md', content: 'from the child' })}`,
      { workspace: 'share' },
    )
    await expect(workspace.writeFile('caller.md', 'x')).rejects.toMatchObject({
      code: 'WORKSPACE_BUSY',
    })
    const callerTools = supervisor.tools()
    await expect(
      callerTools.write_file?.execute?.(
        { path: 'caller.md', content: 'x' },
        { toolCallId: '1', messages: [] },
      ),
    ).rejects.toMatchObject({ code: 'WORKSPACE_BUSY' })
    expect(() => supervisor.delegate('Me too', { workspace: 'share' })).toThrow(
      expect.objectContaining({ code: 'WORKSPACE_BUSY' }),
    )
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report).toMatchObject({ status: 'done', directory: root, files: ['shared.md'] })
    await workspace.writeFile('caller.md', 'mine again')
    expect(await workspace.readFile('shared.md')).toBe('from the child')
  })

  it('hands the workspace back to the caller when a share child is cancelled', async () => {
    const { supervisor } = supervise()
    const id = supervisor.delegate('[[sleep:20000]] Long edit', { workspace: 'share' })
    await expect(supervisor.workspace.writeFile('mine.md', 'x')).rejects.toMatchObject({
      code: 'WORKSPACE_BUSY',
    })
    expect((await supervisor.cancelAgent(id)).status).toBe('cancelled')
    expect(supervisor.workspace.holder).toBeUndefined()
    await supervisor.workspace.writeFile('mine.md', 'mine again')
    expect(await supervisor.workspace.readFile('mine.md')).toBe('mine again')
  })

  it("refuses a child's file tools that try to leave its directory", async () => {
    const { supervisor } = supervise()
    await createDirectoryWorkspace({ root }).writeFile('secret.txt', 'top secret')
    const id = supervisor.delegate(
      [
        directive('read_file', { path: '../../secret.txt' }),
        directive('read_file', { path: path.join(root, 'secret.txt') }),
        directive('write_file', { path: '../../planted.txt', content: 'x' }),
      ].join(''),
    )
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report?.status).toBe('done')
    expect(report?.result).not.toContain('top secret')
    expect(report?.result.match(/outside the workspace/g)).toHaveLength(3)
    expect(existsSync(path.join(root, 'planted.txt'))).toBe(false)
  })

  it("refuses a child's writes through a symlink that points out of its workspace", async () => {
    const outside = await makeTempRoot()
    try {
      await symlink(outside.root, path.join(root, 'elsewhere'))
      const { supervisor } = supervise()
      const id = supervisor.delegate(
        directive('write_file', { path: 'elsewhere/planted.txt', content: 'x' }),
        { workspace: 'share' },
      )
      const report = (await supervisor.waitAgents([id]))?.[id]
      expect(report?.result).toMatch(/symlink points out of the workspace/)
      expect(existsSync(path.join(outside.root, 'planted.txt'))).toBe(false)
    } finally {
      await outside.remove()
    }
  })

  it('resolves waitAgents with null when the caller was paused first, or is paused while waiting', async () => {
    const { supervisor } = supervise()
    const id = supervisor.delegate('[[sleep:400]] Slow work')
    supervisor.pause()
    await expect(supervisor.waitAgents([id])).resolves.toBeNull()
    supervisor.resume()
    const waiting = supervisor.waitAgents([id])
    supervisor.pause()
    await expect(waiting).resolves.toBeNull()
    supervisor.resume()
    expect((await supervisor.waitAgents([id]))?.[id]?.status).toBe('done')
  })

  it('serves several waits of one supervisor at once, each ending when its own sub-agents do', async () => {
    const { supervisor } = supervise()
    const fast = supervisor.delegate('Quick work')
    const slow = supervisor.delegate('[[sleep:1500]] Slow work')
    const ended: string[] = []
    const noted = <T>(name: string, wait: Promise<T>) =>
      wait.then((reports) => {
        ended.push(name)
        return reports
      })
    const both = noted('both', supervisor.waitAgents([fast, slow]))
    const onlySlow = noted('slow', supervisor.waitAgents([slow]))
    const onlyFast = noted('fast', supervisor.waitAgents([fast]))
    const timed = noted('timed', supervisor.waitAgents([slow], { timeoutMs: 50 }))
    expect((await onlyFast)?.[fast]?.status).toBe('done')
    expect((await timed)?.[slow]?.status).toBe('running')
    // Neither wait for the slow one ended with the others.
    expect(ended.sort()).toEqual(['fast', 'timed'])
    expect((await supervisor.report(slow)).status).toBe('running')
    const [bothReports, slowReports] = await Promise.all([both, onlySlow])
    expect([bothReports?.[fast]?.status, bothReports?.[slow]?.status]).toEqual(['done', 'done'])
    expect(slowReports?.[slow]?.status).toBe('done')
    // A wait after they all ended has nobody to wait for.
    expect((await supervisor.waitAgents([fast, slow]))?.[slow]?.status).toBe('done')
  })

  it('reports in the order asked, reading the disk only for a child that shares it, and names bad options', async () => {
    const { supervisor } = supervise()
    const own = supervisor.delegate(
      `Write ${directive('write_file', { path: 'own.md', content: 'mine' })}`,
    )
    const shared = supervisor.delegate(
      `Write ${directive('write_file', { path: 'shared.md', content: 'ours' })}`,
      { workspace: 'share' },
    )
    const reports = await supervisor.waitAgents([shared, own, shared])
    expect(Object.keys(reports ?? {})).toEqual([shared, own])
    expect(reports?.[shared]).toMatchObject({ status: 'done', files: ['shared.md'] })
    expect(reports?.[own]).toMatchObject({ status: 'done', files: ['own.md'] })
    await expect(supervisor.waitAgents([own], { timeoutMs: -1 })).rejects.toThrow(/timeoutMs/)
    await expect(supervisor.waitAgents([own], [] as never)).rejects.toThrow(/waitAgents options/)
    await expect(supervisor.waitAgents([own, 'sub-99'])).rejects.toMatchObject({
      code: 'UNKNOWN_SUBAGENT',
    })
    expect((await supervisor.waitAgents([own], {}))?.[own]?.status).toBe('done')
  })

  it('shows running for a slow child when waitAgents times out', async () => {
    const { budget, supervisor } = supervise()
    const id = supervisor.delegate('[[sleep:20000]] Very slow work')
    const report = (await supervisor.waitAgents([id], { timeoutMs: 100 }))?.[id]
    expect(report?.status).toBe('running')
    expect(report?.result).toBe('')
    const cancelled = await supervisor.cancelAgent(id)
    expect(cancelled.status).toBe('cancelled')
    expect(budget.spent().calls).toBe(0)
  })

  it('keeps a multi-turn child for sendAgent, going on with its conversation', async () => {
    const { supervisor } = supervise()
    const id = supervisor.delegate('[[answer:first turn done]]', { multiTurn: true })
    expect((await supervisor.waitAgents([id]))?.[id]?.result).toBe('first turn done')
    supervisor.sendAgent(id, `Now survey ${listFiles}[[answer:second turn done]]`)
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report).toMatchObject({ status: 'done', result: 'second turn done', modelCalls: 3 })

    expect(() => supervisor.sendAgent(id, 'one more')).not.toThrow()
    expect(() => supervisor.sendAgent(id, 'while it works')).toThrow(
      expect.objectContaining({
        code: 'SUBAGENT_UNAVAILABLE',
        message: expect.stringMatching(/working/),
      }),
    )
    expect((await supervisor.waitAgents([id]))?.[id]?.status).toBe('done')
  })

  it('lets a model child whose turn is over go on with what it has, without multiTurn', async () => {
    const { budget, supervisor } = supervise({ calls: 10 })
    const id = supervisor.delegate(
      directive('write_file', { path: 'draft.md', content: 'first' }),
      { budget: { calls: 5 } },
    )
    expect((await supervisor.waitAgents([id]))?.[id]).toMatchObject({
      status: 'done',
      modelCalls: 2,
    })
    supervisor.sendAgent(id, `Check your draft ${directive('read_file', { path: 'draft.md' })}`)
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report).toMatchObject({ status: 'done', modelCalls: 4, files: ['draft.md'] })
    expect(report?.result).toContain('first')
    expect(budget.spent().calls).toBe(4)
    // One call of its 5 is left: a third turn that wants two runs out, and the caller paid 5.
    supervisor.sendAgent(id, `Once more ${listFiles}`)
    expect((await supervisor.waitAgents([id]))?.[id]?.status).toBe('budget-exhausted')
    expect(budget.spent().calls).toBe(5)
    expect(() => supervisor.sendAgent(id, 'again')).toThrow(
      expect.objectContaining({
        code: 'SUBAGENT_UNAVAILABLE',
        message: expect.stringMatching(/ended/),
      }),
    )

    const cancelled = supervisor.delegate('Short job')
    await supervisor.waitAgents([cancelled])
    await supervisor.cancelAgent(cancelled)
    expect(() => supervisor.sendAgent(cancelled, 'more')).toThrow(/budget has ended/)
  })

  it('gives a custom runner the tools and the whole conversation on each turn', async () => {
    const turns: SubagentTurn[] = []
    const runner: SubagentRunner = {
      run: async (turn) => {
        turns.push(turn)
        const text = `turn ${turns.length}`
        return { text, messages: [{ role: 'assistant', content: text }] }
      },
    }
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 5 }),
      runner,
    })
    const id = supervisor.delegate('Start', { multiTurn: true })
    await supervisor.waitAgents([id])
    supervisor.sendAgent(id, 'Go on')
    expect((await supervisor.waitAgents([id]))?.[id]?.result).toBe('turn 2')
    expect(Object.keys(turns[0]!.tools).sort()).toEqual([
      'ask_caller',
      'cancel_agent',
      'delegate_agent',
      'list_files',
      'read_file',
      'send_agent',
      'wait_agents',
      'write_file',
    ])
    expect(turns[1]?.messages).toEqual([
      { role: 'user', content: 'Start' },
      { role: 'assistant', content: 'turn 1' },
      { role: 'user', content: 'Go on' },
    ])
    expect(turns[1]?.directory).toBe(path.join(root, '.subagents', id))
  })

  it('uses another model of the same provider, and refuses another provider', async () => {
    const { supervisor } = supervise()
    const id = supervisor.delegate('Check', { model: 'offline:other' })
    expect(supervisor.tree()[0]?.runs).toBe('model:offline:other')
    expect((await supervisor.waitAgents([id]))?.[id]?.status).toBe('done')
    expect(() => supervisor.delegate('Check', { model: 'openai:gpt-4o-mini' })).toThrow(
      expect.objectContaining({ code: 'MODEL_PROVIDER_MISMATCH' }),
    )
  })

  it('refuses bad options with VALIDATION_FAILED naming what was wrong and where', () => {
    const { supervisor } = supervise()
    const workspace = { kind: 'directory' as const, root }
    const cases: [() => unknown, RegExp][] = [
      [() => supervisor.delegate(''), /task: must say what to do/],
      [() => supervisor.delegate('x', { budget: { cals: 3 } as never }), /budget.*"cals"/],
      [() => supervisor.delegate('x', { budget: { calls: -1 } }), /budget: calls/],
      [() => supervisor.delegate('x', { model: 'gpt' }), /delegate options: model/],
      [() => supervisor.delegate('x', { model: 'offline:a', agent: 'codex' }), /not both/],
      [() => supervisor.sendAgent('sub-1', ''), /message: must not be empty/],
      [() => createSupervisor({ workspace, budget: createBudget({}) } as never), /agent: must be/],
      [
        () => createSupervisor({ agent: makeAgent(), workspace, budget: {} as never }),
        /budget: must be a budget/,
      ],
      [
        () =>
          createSupervisor({
            agent: makeAgent(),
            workspace,
            budget: createBudget({}),
            workspaceProviders: { browser: {} as never },
          }),
        /workspaceProviders.browser: must be \{ create/,
      ],
      [
        () =>
          createSupervisor({
            agent: makeAgent(),
            workspace,
            budget: createBudget({}),
            runner: {} as never,
          }),
        /runner: must be \{ run/,
      ],
    ]
    for (const [act, message] of cases) {
      expect(act).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }))
      expect(act).toThrow(message)
    }
    expect(supervisor.tree()).toEqual([])
  })

  it('refuses unknown and unavailable workspace kinds and adapters at delegate', () => {
    const budget = createBudget({ calls: 10 })
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget,
      workspaceProviders: {
        desktop: {
          unavailableReason: () => 'no display',
          create: () => createDirectoryWorkspace({ root }),
        },
      },
      adapters: { ghost: { command: 'baton-no-such-command', args: () => [] } },
    })
    expect(() => supervisor.delegate('Browse', { workspace: 'browser' })).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_WORKSPACE_KIND' }),
    )
    expect(() => supervisor.delegate('Click', { workspace: 'desktop' })).toThrow(/no display/)
    expect(() => supervisor.delegate('Code', { agent: 'nobody' })).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_AGENT_ADAPTER' }),
    )
    // A name a model may give that an object inherits is unknown like any other.
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(() => supervisor.delegate('Browse', { workspace: name })).toThrow(
        expect.objectContaining({ code: 'UNKNOWN_WORKSPACE_KIND' }),
      )
      expect(() => supervisor.delegate('Code', { agent: name })).toThrow(
        expect.objectContaining({ code: 'UNKNOWN_AGENT_ADAPTER' }),
      )
    }
    expect(() => supervisor.delegate('Code', { agent: 'ghost' })).toThrow(
      expect.objectContaining({ code: 'AGENT_ADAPTER_UNAVAILABLE' }),
    )
    expect(supervisor.tree()).toEqual([])
  })

  it('gives a child of a provided kind its workspace and the tools of that kind', async () => {
    const created: string[] = []
    const supervisor = createSupervisor({
      // A kind's tools are granted as the card lists them, like the file tools.
      agent: makeAgent({ tools: ['open_page'] }),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 10 }),
      workspaceProviders: {
        browser: {
          create: ({ id, directory }) => {
            created.push(id)
            return createDirectoryWorkspace({
              root: directory,
              kind: 'browser',
              tools: () => ({
                open_page: tool({
                  description: 'Opens a page.',
                  inputSchema: z.object({ url: z.string() }),
                  execute: async ({ url }) => ({ title: `Page at ${url}` }),
                }),
              }),
            })
          },
        },
      },
    })
    const openPage = directive('open_page', { url: 'https://example.com' })
    // Its own sub-agent asks for 'new': a workspace of its caller's kind, from the same provider.
    const grandchild = directive('delegate_agent', { task: `Look too ${openPage}` })
    const id = supervisor.delegate(`${openPage}${grandchild}${directive('wait_agents')}`, {
      workspace: 'browser',
    })
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report?.result).toContain('Page at https://example.com')
    expect(supervisor.tree()[0]?.workspace).toBe('browser')
    expect(created).toEqual([id, `${id}.1`])
    expect(supervisor.tree()[0]?.children[0]).toMatchObject({
      status: 'done',
      directory: path.join(root, '.subagents', `${id}.1`),
    })
  })

  it("disposes a provider's workspace on cleanup", async () => {
    const disposed: string[] = []
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 10 }),
      workspaceProviders: {
        desktop: {
          create: ({ id, directory }) =>
            createDirectoryWorkspace({
              root: directory,
              kind: 'desktop',
              dispose: async () => {
                disposed.push(id)
              },
            }),
        },
      },
    })
    const id = supervisor.delegate('Click around', { workspace: 'desktop' })
    await supervisor.waitAgents([id])
    expect(disposed).toEqual([])
    await supervisor.cleanup()
    expect(disposed).toEqual([id])
  })

  it('lets children delegate through tools, up to maxDepth, and shows the tree', async () => {
    const budget = createBudget({ calls: 30 })
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget,
      maxDepth: 2,
    })
    const starts: SupervisorEvents['agent-start'][] = []
    supervisor.on('agent-start', (event) => starts.push(event))
    const grandchildTask = `Too deep? ${directive('delegate_agent', { task: 'Great-grandchild' })}`
    const id = supervisor.delegate(
      `${directive('delegate_agent', { task: grandchildTask })}${directive('wait_agents')}`,
    )
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report?.status).toBe('done')
    expect(report?.result).toContain(`${id}.1`)
    const [child] = supervisor.tree()
    expect(child?.children).toEqual([
      expect.objectContaining({ id: `${id}.1`, parentId: id, depth: 2, status: 'done' }),
    ])
    expect(child?.children[0]?.children).toEqual([])
    expect(starts.map((event) => [event.id, event.depth])).toEqual([
      [id, 1],
      [`${id}.1`, 2],
    ])
    // Flat: the grandchild's directory is beside its parent's, directly under the run's root.
    // Nothing is nested in the child's directory (a directory is made once a file tool needs it).
    expect(existsSync(path.join(root, '.subagents', id, '.subagents'))).toBe(false)
    expect(child?.children[0]?.directory).toBe(path.join(root, '.subagents', `${id}.1`))
    // The grandchild's own delegate_agent was refused, and its report says why.
    expect(report?.result).toContain('maximum depth of 2')
    expect(child?.modelCalls).toBe(budget.spent().calls)
    const direct = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget,
      maxDepth: 0,
    })
    expect(() => direct.delegate('Anything')).toThrow(
      expect.objectContaining({ code: 'MAX_DEPTH_EXCEEDED' }),
    )
  })

  it('refuses a delegate_agent budget with a key it does not know, and takes every name a budget has', async () => {
    const { supervisor } = supervise({ calls: 30 })
    const misspelt = directive('delegate_agent', { task: 'unbounded', budget: { maxUsd: 0.01 } })
    const bounded = directive('delegate_agent', {
      task: 'bounded',
      budget: { costUsd: 1, tokens: 10_000, maxWallMs: 60_000, calls: 2 },
    })
    const id = supervisor.delegate(`${misspelt}${bounded}${directive('wait_agents')}`)
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report?.status).toBe('done')
    // The model is told what was wrong, and no sub-agent starts without the cap it meant.
    expect(report?.result).toContain('Unrecognized key')
    expect(report?.result).toContain('maxUsd')
    expect(supervisor.tree()[0]?.children).toEqual([
      expect.objectContaining({ task: 'bounded', status: 'done' }),
    ])
  })

  it('keeps each sub-agent’s own children apart, across siblings, trees and a cleanup', async () => {
    const budget = createBudget({ calls: 30 })
    const supervise = () =>
      createSupervisor({ agent: makeAgent(), workspace: { kind: 'directory', root }, budget })
    const supervisor = supervise()
    const parent = supervisor.delegate(
      `${directive('delegate_agent', { task: 'Child' })}${directive('wait_agents')}`,
    )
    const leaf = supervisor.delegate('Nothing to hand on')
    const reports = await supervisor.waitAgents([parent, leaf])
    expect([reports?.[parent]?.status, reports?.[leaf]?.status]).toEqual(['done', 'done'])
    const shape = (nodes: ReturnType<typeof supervisor.tree>): unknown =>
      nodes.map((node) => [node.id, shape(node.children)])
    expect(shape(supervisor.tree())).toEqual([
      [parent, [[`${parent}.1`, []]]],
      [leaf, []],
    ])
    // Another tree started after it knows none of its sub-agents.
    const other = supervise()
    expect(other.tree()).toEqual([])
    expect(await other.waitAgents()).toEqual({})
    // Cleaned up, the tree knows nothing, and takes new sub-agents again.
    await supervisor.cleanup()
    expect(supervisor.tree()).toEqual([])
    const again = supervisor.delegate(
      `${directive('delegate_agent', { task: 'Child again' })}${directive('wait_agents')}`,
    )
    expect((await supervisor.waitAgents([again]))?.[again]?.status).toBe('done')
    expect(shape(supervisor.tree())).toEqual([[again, [[`${again}.1`, []]]]])
    expect(other.tree()).toEqual([])
  })

  it('reports a throwing event listener as a warning without failing the child', async () => {
    const { supervisor } = supervise()
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    try {
      supervisor.on('agent-finish', () => {
        throw new Error('the UI broke')
      })
      const id = supervisor.delegate('Quick job')
      expect((await supervisor.waitAgents([id]))?.[id]?.status).toBe('done')
      await waitFor(() => (warnings.length > 0 ? true : undefined))
      expect(warnings[0]?.message).toBe('the UI broke')
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('keeps a finished child’s directory and report until cleanup', async () => {
    const { supervisor } = supervise()
    const id = supervisor.delegate(directive('write_file', { path: 'out.txt', content: 'kept' }))
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(await readFile(path.join(report!.directory, 'out.txt'), 'utf8')).toBe('kept')
    expect((await supervisor.report(id)).files).toEqual(['out.txt'])
    await supervisor.cleanup(id)
    expect(existsSync(report!.directory)).toBe(false)
    expect(existsSync(path.join(root, '.subagents'))).toBe(false)
    await expect(supervisor.report(id)).rejects.toMatchObject({ code: 'UNKNOWN_SUBAGENT' })
  })

  it('removes on cleanup the directories that were made, among siblings that made none', async () => {
    const { supervisor } = supervise()
    const writer = supervisor.delegate(directive('write_file', { path: 'a.txt', content: 'a' }))
    const quiet = [supervisor.delegate('Just answer'), supervisor.delegate('Answer too')]
    const reports = await supervisor.waitAgents([writer, ...quiet])
    expect(await readdir(path.join(root, '.subagents'))).toEqual([writer])
    expect(quiet.map((id) => existsSync(reports![id]!.directory))).toEqual([false, false])
    // Something else made one of the quiet ones' directories meanwhile: it goes as well.
    await mkdir(reports![quiet[0]!]!.directory)
    await writeFile(path.join(reports![quiet[0]!]!.directory, 'stray.txt'), 'x')
    await supervisor.cleanup()
    expect(existsSync(path.join(root, '.subagents'))).toBe(false)
    expect(supervisor.tree()).toEqual([])
  })
})
