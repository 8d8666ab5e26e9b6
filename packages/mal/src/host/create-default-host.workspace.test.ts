import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createStaticRegistry } from '@baton/core'
import { BROWSER_TOOL_NAMES } from '@baton/subagents'
import {
  type BrowserWorkspaceProvider,
  createBrowserWorkspaceProvider,
} from '@baton/subagents/browser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentRecord, analystWallet, reviewerWallet } from '../__fixtures__/agents'
import { type RunFile, runPlan } from '../run'

const CHROMIUM = '/usr/bin/chromium'
function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing, and CI=true.`)
  console.warn(`Skipping the MAL browser task tests: ${CHROMIUM} is not installed.`)
  return false
}

const registry = createStaticRegistry([
  agentRecord({ tools: [...BROWSER_TOOL_NAMES] }),
  agentRecord({ id: 'writer', wallet: reviewerWallet, tools: ['write_file'] }),
])

describe.runIf(chromiumAvailable())('a task with workspace: browser', () => {
  let server: http.Server
  let origin: string
  let browser: BrowserWorkspaceProvider
  let workspaceRoot: string
  beforeAll(async () => {
    server = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' })
      response.end('<title>Status</title><h1>All systems normal</h1>')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = createBrowserWorkspaceProvider({ allowedOrigins: [origin], allowLoopback: true })
    workspaceRoot = await mkdtemp(path.join(tmpdir(), 'mal-browser-'))
  })
  afterAll(async () => {
    await browser?.close()
    server?.closeAllConnections()
    server?.close()
    await rm(workspaceRoot, { recursive: true, force: true })
  })

  it('runs the task in a browser of its own and keeps its screenshot', async () => {
    const result = await runPlan(
      {
        steps: [
          {
            op: 'task',
            saveAs: 'status',
            agentWallet: analystWallet,
            workspace: 'browser',
            prompt: `Read the status page [[tool:open_page {"url":"${origin}/"}]][[tool:read_page]][[tool:screenshot]]`,
          },
          { op: 'stop', output: '{{status}}' },
        ],
      },
      { registry, workspaceRoot, workspaceProviders: { browser } },
    )
    expect(result.error).toBeUndefined()
    expect(result.output).toContain('All systems normal')
    const [task] = await readdir(path.join(workspaceRoot, '.subagents'))
    const png = await readFile(
      path.join(workspaceRoot, '.subagents', task!, 'screenshots', 'screenshot-1.png'),
    )
    expect(png.subarray(1, 4).toString()).toBe('PNG')
  })

  it('gives the run its screenshots, each announced by a step-file event once saved', async () => {
    const saved: RunFile[] = []
    const announced: string[] = []
    const result = await runPlan(
      {
        steps: [
          {
            op: 'task',
            saveAs: 'status',
            agentWallet: analystWallet,
            workspace: 'browser',
            prompt: `Look twice [[tool:open_page {"url":"${origin}/"}]][[tool:screenshot]][[tool:screenshot]]`,
          },
        ],
      },
      {
        registry,
        workspaceProviders: { browser },
        files: {
          save: async (file) => {
            // The event comes after the file is saved, never before.
            expect(announced).not.toContain(file.name)
            saved.push(file)
          },
        },
        onEvent: (event) => {
          if (event.type === 'step-file') announced.push(event.name)
        },
      },
    )
    expect(result.error).toBeUndefined()
    expect(saved.map((file) => file.name)).toEqual([
      'steps[0]/screenshots/screenshot-1.png',
      'steps[0]/screenshots/screenshot-2.png',
    ])
    expect(announced).toEqual(saved.map((file) => file.name))
    expect(saved[0]).toMatchObject({
      runId: result.runId,
      path: 'steps[0]',
      mediaType: 'image/png',
    })
    expect(Buffer.from(saved[0]!.data).subarray(1, 4).toString()).toBe('PNG')
    const event = result.events.find((each) => each.type === 'step-file')
    expect(event).toMatchObject({
      wallet: analystWallet,
      file: 'screenshots/screenshot-1.png',
      bytes: saved[0]!.data.byteLength,
    })
  })

  it('refuses, before anything is spent, an agent whose card lists no browser tool', async () => {
    const result = await runPlan(
      {
        steps: [
          {
            op: 'task',
            saveAs: 'status',
            agentWallet: reviewerWallet,
            workspace: 'browser',
            prompt: 'Read the status page',
          },
        ],
      },
      { registry, workspaceRoot, workspaceProviders: { browser } },
    )
    expect(result.status).toBe('failed')
    expect(result.error).toMatchObject({
      code: 'TASK_WORKSPACE_TOOLS_MISSING',
      message: expect.stringContaining(`agent ${reviewerWallet} lists write_file`),
    })
    expect(result.usage.calls).toBe(0)
  })

  it('fails with UNKNOWN_WORKSPACE_KIND where the host has no provider of the kind', async () => {
    const result = await runPlan(
      {
        steps: [
          {
            op: 'task',
            saveAs: 'status',
            agentWallet: analystWallet,
            workspace: 'display',
            prompt: 'Take a screenshot [[tool:screenshot]]',
          },
        ],
      },
      { registry, workspaceRoot, workspaceProviders: { browser } },
    )
    expect(result.error).toMatchObject({ code: 'UNKNOWN_WORKSPACE_KIND' })
  })
})
