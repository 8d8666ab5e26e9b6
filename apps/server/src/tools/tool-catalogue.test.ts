import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { signAgentRegistration } from '@baton/core'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newAgentAccounts, patchAgent } from '../__fixtures__/signed-agents'
import { createTestApp } from '../__fixtures__/test-app'
import { testRegistryId } from '../settings'
import { createToolCatalogue } from './create-tool-catalogue'

const filesServer = fileURLToPath(
  new URL('../../../../packages/core/src/mcp/__fixtures__/files-server.mjs', import.meta.url),
)

let folder: string
let app: FastifyInstance

async function register(overrides: Record<string, unknown>) {
  const accounts = newAgentAccounts()
  const agent = { ...accounts.agent, ...overrides }
  const body = await signAgentRegistration(agent as never, {
    ...accounts,
    registry: testRegistryId,
  })
  const response = await app.inject({ method: 'POST', url: '/api/v1/agents', payload: body })
  return {
    response,
    agent: { ...accounts.agent, ...overrides } as typeof accounts.agent,
    creator: accounts.creator,
  }
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'baton-catalogue-'))
  await writeFile(path.join(folder, 'runbook.txt'), 'Roll back with: deploy --previous\n')
  const config = path.join(folder, 'mcp.json')
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        files: { command: process.execPath, args: [filesServer, folder], pricePerCallUsd: 0.001 },
        vault: { command: process.execPath, args: [filesServer, folder], minTrustTier: 'high' },
      },
    }),
  )
  const toolsModule = path.join(folder, 'tools.mjs')
  const aiEntry = import.meta.resolve('ai')
  const zodEntry = import.meta.resolve('zod')
  await writeFile(
    toolsModule,
    `import { tool } from ${JSON.stringify(aiEntry)}
import { z } from ${JSON.stringify(zodEntry)}
export const tools = {
  weather: tool({
    description: 'The weather in a city.',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => 'sunny in ' + city,
  }),
}
`,
  )
  app = await createTestApp({ mcpConfig: config, toolsModule })
})
let closed = false
afterAll(async () => {
  if (!closed) await app?.close()
  await rm(folder, { recursive: true, force: true })
})

describe('the server’s tool and model catalogue', () => {
  it('lists built-in, module and MCP tools with their schema, server and trust tier', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v1/tools' })
    expect(response.statusCode).toBe(200)
    const { tools, unavailable } = response.json() as {
      tools: Record<string, unknown>[]
      unavailable: unknown[]
    }
    expect(unavailable).toEqual([])
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    expect(byName.get('ask_peer')).toMatchObject({ source: 'builtin' })
    expect(byName.get('weather')).toMatchObject({
      source: 'module',
      inputSchema: { properties: { city: { type: 'string' } } },
    })
    expect(byName.get('mcp__files__read_file')).toMatchObject({
      source: 'mcp',
      server: 'files',
      minTrustTier: 'safe',
      pricePerCallUsd: 0.001,
      inputSchema: { properties: { path: { type: 'string' } } },
    })
    expect(byName.get('mcp__vault__read_file')).toMatchObject({ minTrustTier: 'high' })
  })

  it('lists the configured providers, offline always', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/v1/models' })
    expect(response.statusCode).toBe(200)
    const { providers } = response.json() as { providers: { provider: string; models: string[] }[] }
    expect(providers.find((entry) => entry.provider === 'offline')?.models).toContain(
      'offline:default',
    )
  })

  it('refuses a card naming a tool the server cannot grant, or an unknown provider, naming the field', async () => {
    const tool = await register({ tools: ['mcp__files__read_file', 'weather', 'search'] })
    expect(tool.response.statusCode).toBe(400)
    expect(tool.response.json().error).toMatchObject({ code: 'VALIDATION_FAILED' })
    expect(tool.response.json().error.message).toContain('tools[2]: "search" is not a tool')
    const missing = await register({ tools: ['mcp__files__no_such_tool'] })
    expect(missing.response.statusCode).toBe(400)
    expect(missing.response.json().error.message).toContain(
      'tools[0]: MCP server "files" has no tool',
    )
    const model = await register({ model: 'opnai:gpt-4o' })
    expect(model.response.statusCode).toBe(400)
    expect(model.response.json().error.message).toContain(
      'model: provider "opnai" is not configured',
    )
    // Nothing was stored for any of them.
    for (const attempt of [tool, missing, model]) {
      const stored = await app.inject({ method: 'GET', url: `/agent/${attempt.agent.wallet}` })
      expect(stored.statusCode).toBe(404)
    }
  })

  it('refuses a PATCH whose tools or model the server cannot grant, naming the field', async () => {
    const { response, agent, creator } = await register({ id: 'patched', tools: ['weather'] })
    expect(response.statusCode).toBe(201)
    const patch = (changes: Record<string, unknown>) => patchAgent(app, { agent, creator }, changes)
    const tools = await patch({ tools: ['mcp__files__read_file', 'search'] })
    expect(tools.statusCode).toBe(400)
    expect(tools.json().error.message).toContain('tools[1]: "search" is not a tool')
    const model = await patch({ model: 'opnai:gpt-4o', provider: 'opnai' })
    expect(model.statusCode).toBe(400)
    expect(model.json().error.message).toContain('model: provider "opnai" is not configured')
    // Refused changes leave the card as it was; a grantable one is stored.
    const stored = await app.inject({ method: 'GET', url: `/agent/${agent.wallet}` })
    expect(stored.json()).toMatchObject({ tools: ['weather'], model: 'offline:default' })
    const granted = await patch({ tools: ['mcp__files__*'] })
    expect(granted.statusCode).toBe(200)
    expect(granted.json().agent.tools).toEqual(['mcp__files__*'])
  })

  it('runs a hosted agent that reads a file through its MCP tool, charged to its wallet', async () => {
    const { response, agent } = await register({
      id: 'runbook-reader',
      tools: ['mcp__files__*', 'weather'],
    })
    expect(response.statusCode).toBe(201)
    const result = await app.baton.agentHost.runHostedAgent({
      agent: agent.id,
      input:
        'How do I roll back? [[tool:mcp__files__read_file {"path":"runbook.txt"}]] [[tool:weather {"city":"Oslo"}]]',
    })
    expect(result.text).toContain('Roll back with: deploy --previous')
    expect(result.text).toContain('sunny in Oslo')
    // Three model calls and one MCP call, on the agent's wallet in the ledger.
    const ledger = await app.inject({ method: 'GET', url: `/api/v1/ledger?wallet=${agent.wallet}` })
    const rows = (ledger.json() as { entries: { calls: number; costUsd: number }[] }).entries
    const calls = rows.reduce((sum, row) => sum + row.calls, 0)
    expect(calls).toBe(result.usage.calls + 1)
    const cost = rows.reduce((sum, row) => sum + row.costUsd, 0)
    expect(cost).toBeCloseTo(result.usage.costUsd + 0.001, 9)
  })

  it('gives no tools of a server above the agent’s trust tier', async () => {
    const { response, agent } = await register({
      id: 'low-reader',
      tools: ['mcp__vault__read_file'],
    })
    expect(response.statusCode).toBe(201)
    await expect(
      app.baton.agentHost.runHostedAgent({
        agent: agent.id,
        input: '[[tool:mcp__vault__read_file {"path":"runbook.txt"}]]',
      }),
    ).rejects.toMatchObject({ code: 'UNKNOWN_TOOL' })
  })

  it('gives a MAL delegate the agent’s MCP tools; each call is in the run’s events and receipt', async () => {
    const { agent } = await register({ id: 'plan-reader', tools: ['mcp__files__read_file'] })
    const plan = `requireReceipt: true
steps:
  - op: delegate
    saveAs: answer
    agentWallet: "${agent.wallet}"
    prompt: 'Read it [[tool:mcp__files__read_file {"path":"runbook.txt"}]] [[tool:mcp__files__read_file {"path":"gone.txt"}]] [[tool:mcp__files__slow {"ms":1}]]'
  - op: stop
    output: "{{answer}}"
`
    const started = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: { plan, inputs: {} },
    })
    expect(started.statusCode).toBe(202)
    const id = (started.json() as { id: string }).id
    let run: { status: string; output?: unknown } = { status: 'queued' }
    for (let attempt = 0; attempt < 200 && !['done', 'failed'].includes(run.status); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      run = (await app.inject({ method: 'GET', url: `/api/v1/runs/${id}` })).json()
    }
    expect(run.status).toBe('done')
    expect(String(run.output)).toContain('Roll back with: deploy --previous')

    // The stored events, as a client reads them: each MCP call, with its server, tool and time.
    const stream = await app.inject({ method: 'GET', url: `/api/v1/runs/${id}/events` })
    const events = stream.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>)
    const tools = events.filter((event) => String(event.type).startsWith('tool-'))
    expect(tools.map((event) => [event.type, event.server, event.tool, event.path])).toEqual([
      ['tool-call', 'files', 'read_file', 'steps[0]'],
      ['tool-result', 'files', 'read_file', 'steps[0]'],
      ['tool-call', 'files', 'read_file', 'steps[0]'],
      ['tool-result', 'files', 'read_file', 'steps[0]'],
      // A tool of the same server that its card does not list: refused, never sent.
      ['tool-call', undefined, 'mcp__files__slow', 'steps[0]'],
      ['tool-result', undefined, 'mcp__files__slow', 'steps[0]'],
    ])
    expect(tools[0]).toMatchObject({
      name: 'mcp__files__read_file',
      wallet: agent.wallet,
      input: { path: 'runbook.txt' },
    })
    expect(tools[1]!.durationMs).toEqual(expect.any(Number))
    expect(tools[1]).not.toHaveProperty('error')
    // The server's isError answer is the call's error.
    expect(tools[3]).toMatchObject({
      error: { code: 'MCP_TOOL_ERROR', message: 'cannot read gone.txt: ENOENT' },
    })

    expect(tools[5]).toMatchObject({ error: { code: 'TOOL_UNAVAILABLE' } })

    const receipt = await app.inject({ method: 'GET', url: `/api/v1/runs/${id}/receipt` })
    expect(receipt.statusCode).toBe(200)
    const { steps } = receipt.json() as { steps: { toolCalls?: Record<string, unknown>[] }[] }
    expect(steps[0]?.toolCalls).toEqual([
      expect.objectContaining({ server: 'files', tool: 'read_file', status: 'done' }),
      expect.objectContaining({
        server: 'files',
        tool: 'read_file',
        status: 'failed',
        errorCode: 'MCP_TOOL_ERROR',
      }),
      expect.objectContaining({ name: 'mcp__files__slow', status: 'failed' }),
    ])
  })

  // Last: it closes the app.
  it('stops its MCP server processes at shutdown', async () => {
    const { agent } = await register({ id: 'pid-reader', tools: ['mcp__files__pid'] })
    const result = await app.baton.agentHost.runHostedAgent({
      agent: agent.id,
      input: 'Which process? [[tool:mcp__files__pid]]',
    })
    const pid = Number(/Tool results?:[^0-9]*(\d+)/.exec(result.text)?.[1])
    expect(pid).toBeGreaterThan(0)
    const alive = () => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    expect(alive()).toBe(true)
    closed = true
    await app.close()
    for (let attempt = 0; attempt < 100 && alive(); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(alive()).toBe(false)
  })
})

describe('the tools of workspace kinds', () => {
  it('may be listed on a card only where the server gives out that kind of workspace', async () => {
    const without = createToolCatalogue()
    expect(await without.check(['open_page', 'key'])).toEqual([
      { path: 'tools[0]', message: expect.stringContaining('"open_page" is not a tool') },
      { path: 'tools[1]', message: expect.stringContaining('"key" is not a tool') },
    ])
    const browser = createToolCatalogue({ workspaceKinds: ['browser'] })
    expect(await browser.check(['open_page', 'screenshot'])).toEqual([])
    expect(await browser.check(['key'])).toHaveLength(1)
    const both = createToolCatalogue({ workspaceKinds: ['browser', 'display'] })
    expect(await both.check(['open_page', 'key', 'launch'])).toEqual([])
    const listed = (await both.list()).tools.filter((tool) => tool.name === 'screenshot')
    expect(listed).toEqual([
      expect.objectContaining({ grantedWhen: expect.stringContaining('browser or display') }),
    ])
  })
})
