import { readFileSync } from 'node:fs'
import { readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { createBudget } from '@baton/core'
import { waitFor } from '@baton/testing/processes'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { directive, makeTempRoot } from '../supervisor/__fixtures__/helpers'
import { makeAgent } from '../supervisor/__fixtures__/make-agent'
import { createSupervisor } from '../supervisor/create-supervisor'
import { isProcessAlive, processTree } from '../workspace/process-tree'
import { BROWSER_TOOL_NAMES } from '../workspace/workspace-kind-tools'
import { CHROMIUM_PATH, chromiumAvailable, pngSize } from './__fixtures__/chromium'
import { startTestSite, type TestSite } from './__fixtures__/test-site'
import { UNUSED_WINDOW_UI_FEATURES } from './chromium-features'
import {
  type BrowserWorkspaceProvider,
  createBrowserWorkspaceProvider,
} from './create-browser-workspace-provider'

let site: TestSite
let elsewhere: TestSite
let provider: BrowserWorkspaceProvider
let root: string
let remove: () => Promise<void>

const agent = makeAgent({ tools: [...BROWSER_TOOL_NAMES] })

// The ref the last read_page in a report gave an element, e.g. `button "Add one" [ref=e4]`.
function refOf(text: string, role: string, name: string): string {
  const match = new RegExp(`${role} \\\\?"${name}\\\\?" \\[ref=(e\\d+)\\]`).exec(text)
  if (!match) throw new Error(`no ref for ${role} "${name}" in: ${text.slice(0, 2000)}`)
  return match[1]!
}

describe.runIf(chromiumAvailable())('browser workspaces', () => {
  beforeAll(async () => {
    elsewhere = await startTestSite()
    site = await startTestSite({ elsewhere: elsewhere.origin })
    provider = createBrowserWorkspaceProvider({
      allowedOrigins: [site.origin],
      allowLoopback: true,
      executablePath: CHROMIUM_PATH,
      toolTimeoutMs: 10_000,
    })
  })
  afterAll(async () => {
    await provider?.close()
    await Promise.all([site?.close(), elsewhere?.close()])
  })
  beforeEach(async () => ({ root, remove } = await makeTempRoot()))
  afterEach(() => remove())

  it('lets a sub-agent open, read, click, read the change and screenshot a page', async () => {
    const supervisor = createSupervisor({
      agent,
      budget: createBudget({ calls: 40 }, { name: 'lead' }),
      workspace: { kind: 'directory', root },
      workspaceProviders: { browser: provider },
    })
    const id = supervisor.delegate(
      `Count once. ${directive('open_page', { url: `${site.origin}/` })}${directive('read_page')}`,
      { workspace: 'browser' },
    )
    const first = (await supervisor.waitAgents([id]))?.[id]
    expect(first?.status, first?.error).toBe('done')
    expect(first?.result).toContain('Count: 0')
    // The ref comes from the page, as a model would read it.
    const button = refOf(first!.result, 'button', 'Add one')
    supervisor.sendAgent(
      id,
      `Now click it. ${directive('click', { ref: button })}${directive('read_page')}${directive('screenshot')}`,
    )
    const second = (await supervisor.waitAgents([id]))?.[id]
    expect(second?.status, second?.error).toBe('done')
    expect(second?.result).toContain('Count: 1')
    expect(second?.files).toContain(path.join('screenshots', 'screenshot-1.png'))
    const png = await readFile(path.join(second!.directory, 'screenshots', 'screenshot-1.png'))
    expect(pngSize(png)).toEqual({ width: 1280, height: 800 })
    // The image reached the model as an image part, not as base64 in the text.
    expect(second?.result).toContain('image/png')
    expect(second?.result.length).toBeLessThan(20_000)
    await supervisor.cleanup()
  })

  it('gives each context one renderer for its pages, and none for browser UI it never shows', async () => {
    const workspaces = [0, 1, 2].map((index) =>
      provider.create({ id: `renderers-${index}`, directory: root }),
    )
    try {
      for (const workspace of workspaces) {
        const tools = workspace.tools!()
        await tools.open_page!.execute!(
          { url: `${site.origin}/` },
          { toolCallId: 'o', messages: [] },
        )
      }
      // A renderer's command line is rewritten as its title: one string, not NUL-separated.
      const renderers = processTree(provider.browserPid!).filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')
        } catch {
          return false
        }
      })
      // One per context, and at most a spare Chromium keeps ready (an omnibox popup WebUI per
      // context, preloaded, made it two per context).
      expect(renderers.length).toBeGreaterThanOrEqual(3)
      expect(renderers.length).toBeLessThanOrEqual(3 + 1)
      // Chromium reads the last --disable-features only: ours keeps every feature Playwright's
      // (the first) turns off.
      const flags = readFileSync(`/proc/${provider.browserPid}/cmdline`, 'utf8')
        .split('\0')
        .filter((arg) => arg.startsWith('--disable-features='))
        .map((arg) => new Set(arg.slice('--disable-features='.length).split(',')))
      expect(flags.length).toBeGreaterThanOrEqual(1)
      const last = flags.at(-1)!
      for (const feature of [...flags[0]!, ...UNUSED_WINDOW_UI_FEATURES])
        expect(last, feature).toContain(feature)
    } finally {
      await Promise.all(workspaces.map((workspace) => workspace.dispose?.()))
    }
  })

  it('types into a field and submits it', async () => {
    const workspace = provider.create({ id: 'lead', directory: root })
    const tools = workspace.tools!()
    const run = (name: string, input: object) =>
      tools[name]!.execute!(input, { toolCallId: name, messages: [] }) as Promise<
        Record<string, unknown>
      >
    await run('open_page', { url: `${site.origin}/` })
    const page = await run('read_page', {})
    const field = refOf(String(page.snapshot), 'textbox', 'Name')
    await run('type', { ref: field, text: 'Ada', submit: true })
    expect((await run('read_page', {})).text).toContain('Hello, Ada')
    await expect(run('click', { ref: 'e999' })).rejects.toMatchObject({
      code: 'BROWSER_ACTION_FAILED',
    })
    await workspace.dispose?.()
  })

  it('gives two sub-agents working at once cookies of their own', async () => {
    const supervisor = createSupervisor({
      agent,
      budget: createBudget({ calls: 40 }, { name: 'lead' }),
      workspace: { kind: 'directory', root },
      workspaceProviders: { browser: provider },
    })
    const visit = (who: string) =>
      `${directive('open_page', { url: `${site.origin}/cookie?set=${who}` })}${directive('open_page', { url: `${site.origin}/whoami` })}${directive('read_page')}`
    const alpha = supervisor.delegate(visit('alpha'), { workspace: 'browser' })
    const beta = supervisor.delegate(visit('beta'), { workspace: 'browser' })
    const reports = await supervisor.waitAgents()
    expect(reports?.[alpha]?.result).toContain('Cookie: who=alpha')
    expect(reports?.[alpha]?.result).not.toContain('beta')
    expect(reports?.[beta]?.result).toContain('Cookie: who=beta')
    expect(reports?.[beta]?.result).not.toContain('alpha')
    await supervisor.cleanup()
  })

  it('refuses pages outside the allowed origins, however they are reached', async () => {
    const workspace = provider.create({ id: 'lead', directory: root })
    const tools = workspace.tools!()
    const run = (name: string, input: object) =>
      tools[name]!.execute!(input, { toolCallId: name, messages: [] }) as Promise<
        Record<string, unknown>
      >
    for (const url of [
      `${elsewhere.origin}/direct`,
      'file:///etc/passwd',
      'chrome://version',
      'data:text/html,<h1>hi</h1>',
    ]) {
      await expect(run('open_page', { url }), url).rejects.toMatchObject({
        code: 'BROWSER_NAVIGATION_REFUSED',
      })
    }
    // A redirect is a request of its own: it cannot lead out.
    await expect(run('open_page', { url: `${site.origin}/redirect-out` })).rejects.toMatchObject({
      code: 'BROWSER_NAVIGATION_REFUSED',
      details: { url: `${elsewhere.origin}/stolen` },
    })
    // A script's fetch and its navigation cannot either.
    await run('open_page', { url: `${site.origin}/script-out` })
    await waitFor(async () => {
      const page = await run('read_page', {})
      const refused = (page.refusedRequests ?? []) as { url: string }[]
      return refused.some((entry) => entry.url.endsWith('/navigated')) ? true : undefined
    })
    expect(elsewhere.requests).toEqual([])
    // Liveness: a redirect within the allowed origin goes through.
    expect(await run('open_page', { url: `${site.origin}/redirect-in` })).toMatchObject({
      url: `${site.origin}/whoami`,
      status: 200,
    })
    await workspace.dispose?.()
  })

  it('saves a download into the directory, under its own name only', async () => {
    const workspace = provider.create({ id: 'lead', directory: root })
    const tools = workspace.tools!()
    const run = (name: string, input: object) =>
      tools[name]!.execute!(input, { toolCallId: name, messages: [] }) as Promise<
        Record<string, unknown>
      >
    await run('open_page', { url: `${site.origin}/download-page` })
    const link = refOf(String((await run('read_page', {})).snapshot), 'link', 'Get the report')
    await run('click', { ref: link })
    // The site suggested "../../report.csv": it lands in downloads/, never above it.
    const saved = await waitFor(async () => {
      const names = await readdir(path.join(root, 'downloads')).catch(() => [])
      const name = names.find((entry) => entry.endsWith('report.csv'))
      return name && (await readFile(path.join(root, 'downloads', name), 'utf8'))
    })
    await expect(stat(path.join(root, '..', 'report.csv'))).rejects.toMatchObject({
      code: 'ENOENT',
    })
    expect(saved).toBe('a,b\n1,2\n')
    await workspace.dispose?.()
  })

  it('lends the caller its tabs for a share turn and hands them back where they were left', async () => {
    const caller = provider.create({ id: 'lead', directory: root })
    const supervisor = createSupervisor({
      agent,
      budget: createBudget({ calls: 40 }, { name: 'lead' }),
      workspace: caller,
      workspaceProviders: { browser: provider },
    })
    const tools = supervisor.tools()
    const run = (name: string, input: object) =>
      tools[name]!.execute!(input, { toolCallId: name, messages: [] }) as Promise<
        Record<string, unknown>
      >
    await run('open_page', { url: `${site.origin}/` })
    const button = refOf(String((await run('read_page', {})).snapshot), 'button', 'Add one')
    const id = supervisor.delegate(
      `${directive('tabs')}${directive('read_page')}${directive('click', { ref: button })}${directive('screenshot')}${directive('ask_caller', { question: 'clicked; more?' })}`,
      { workspace: 'share' },
    )
    const asking = (await supervisor.waitAgents([id]))?.[id]
    expect(asking?.status, asking?.error).toBe('asking')
    // The child took over the caller's tab (the one the caller opened).
    expect(asking?.status === 'asking' && supervisor.workspace.holder).toBe(id)
    await expect(run('read_page', {})).rejects.toMatchObject({
      code: 'WORKSPACE_BUSY',
      details: { holder: id },
    })
    supervisor.sendAgent(id, 'No, that is all.')
    const done = (await supervisor.waitAgents([id]))?.[id]
    expect(done?.status, done?.error).toBe('done')
    expect(done?.result).toContain(`${site.origin}/`)
    // What its tools wrote into the caller's directory is in its report.
    expect(done?.files).toEqual([path.join('screenshots', 'screenshot-1.png')])
    // Handed back as the child left it: the same tab, clicked once.
    const after = await run('read_page', {})
    expect(after).toMatchObject({ tab: 0, url: `${site.origin}/` })
    expect(after.text).toContain('Count: 1')
    await caller.dispose?.()
  })

  it('ends a tool call that takes too long with WORKSPACE_TOOL_TIMEOUT', async () => {
    const quick = createBrowserWorkspaceProvider({
      allowedOrigins: [site.origin],
      allowLoopback: true,
      executablePath: CHROMIUM_PATH,
      toolTimeoutMs: 2_000,
    })
    try {
      const workspace = quick.create({ id: 'lead', directory: root })
      const open = (url: string) =>
        workspace.tools!().open_page!.execute!({ url }, { toolCallId: '1', messages: [] })
      // Liveness first (a loaded machine may need a second try at a fresh tab).
      await waitFor(() => open(`${site.origin}/`).catch(() => undefined))
      await expect(open(`${site.origin}/slow`)).rejects.toMatchObject({
        code: 'WORKSPACE_TOOL_TIMEOUT',
        details: { tool: 'open_page', timeoutMs: 2_000 },
      })
    } finally {
      await quick.close()
    }
  })
})

describe.runIf(chromiumAvailable())('browser workspaces ending', () => {
  let ending: BrowserWorkspaceProvider
  beforeAll(async () => {
    site = await startTestSite()
    ending = createBrowserWorkspaceProvider({
      allowedOrigins: [site.origin],
      allowLoopback: true,
      executablePath: CHROMIUM_PATH,
      toolTimeoutMs: 20_000,
    })
  })
  afterAll(async () => {
    await ending?.close()
    await site?.close()
  })
  beforeEach(async () => ({ root, remove } = await makeTempRoot()))
  afterEach(() => remove())

  it('stops a sub-agent whose seconds run out in the middle of a page load', async () => {
    const supervisor = createSupervisor({
      agent,
      budget: createBudget({ calls: 10 }, { name: 'lead' }),
      workspace: { kind: 'directory', root },
      workspaceProviders: { browser: ending },
    })
    const id = supervisor.delegate(directive('open_page', { url: `${site.origin}/slow` }), {
      workspace: 'browser',
      budget: { seconds: 4 },
    })
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report?.status).toBe('timed-out')
    expect(report?.seconds).toBeLessThan(15)
    await supervisor.cleanup()
  })

  it('closes the context at cancel, and leaves no Chromium process once closed', async () => {
    const supervisor = createSupervisor({
      agent,
      budget: createBudget({ calls: 10 }, { name: 'lead' }),
      workspace: { kind: 'directory', root },
      workspaceProviders: { browser: ending },
    })
    const closedBefore = site.slowClosed
    const slowRequests = () => site.requests.filter((entry) => entry.path === '/slow').length
    const requestedBefore = slowRequests()
    const id = supervisor.delegate(directive('open_page', { url: `${site.origin}/slow` }), {
      workspace: 'browser',
    })
    // Its page load is in flight (the earlier test's does not count).
    await waitFor(() => (slowRequests() > requestedBefore ? true : undefined))
    const pids = processTree(ending.browserPid!)
    expect(pids.length).toBeGreaterThan(1)
    const report = await supervisor.cancelAgent(id)
    expect(report.status).toBe('cancelled')
    // Its context is gone at once: the page load it had in flight was dropped.
    await waitFor(() => (site.slowClosed > closedBefore ? true : undefined), { timeoutMs: 5_000 })
    // The browser stays up for the other sub-agents.
    expect(isProcessAlive(ending.browserPid!)).toBe(true)
    await ending.close()
    await waitFor(() => (pids.some(isProcessAlive) ? undefined : true), { timeoutMs: 10_000 })
  })
})
