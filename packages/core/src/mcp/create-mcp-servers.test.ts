import { getEventListeners } from 'node:events'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { isAlive, waitFor } from '@baton/testing/processes'
import { startServerProcess } from '@baton/testing/server-process'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ADA_WALLET, makeAgent } from '../agent/__fixtures__/make-agent'
import { runAgent } from '../agent/run-agent'
import type { ToolCallEvent } from '../agent/tool-call-event'
import { createBudget } from '../budget'
import { ToolNotAllowedError, UnknownToolError } from '../tools'
import { createMcpServers, type McpServers } from './create-mcp-servers'
import { McpServerUnavailableError, McpTimeoutError, McpToolError } from './mcp-errors'

const fixture = fileURLToPath(new URL('./__fixtures__/files-server.mjs', import.meta.url))
let root: string
const open: McpServers[] = []

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'baton-mcp-'))
  await writeFile(path.join(root, 'notes.txt'), 'The deploy window is Tuesday 14:00 UTC.\n')
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})
afterEach(async () => {
  await Promise.all(open.splice(0).map((servers) => servers.close()))
})

function stdioServers(
  extra: Record<string, unknown> = {},
  backoff = { initialMs: 100, maxMs: 400 },
) {
  const servers = createMcpServers(
    { mcpServers: { files: { command: process.execPath, args: [fixture, root], ...extra } } },
    { backoff },
  )
  open.push(servers)
  return servers
}

describe('createMcpServers over stdio', () => {
  it('lists every tool as mcp__<server>__<tool> with its JSON Schema', async () => {
    const { tools, unavailable } = await stdioServers().listTools()
    expect(unavailable).toEqual([])
    const read = tools.find((tool) => tool.name === 'mcp__files__read_file')
    expect(read).toMatchObject({ server: 'files', tool: 'read_file', minTrustTier: 'safe' })
    expect(read?.inputSchema).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string' } },
    })
    expect(tools.map((tool) => tool.name)).toContain('mcp__files__slow')
  })

  it('lets an offline agent read a file through a [[tool:...]] directive, charged to its wallet', async () => {
    const servers = stdioServers({ pricePerCallUsd: 0.01 })
    const agent = makeAgent({ tools: ['mcp__files__read_file'] })
    const budget = createBudget({ calls: 10 })
    const extraTools = await servers.toolsFor(agent, { budget })
    expect(Object.keys(extraTools)).toEqual(['mcp__files__read_file'])
    const events: ToolCallEvent[] = []
    const result = await runAgent(
      agent,
      'What is the window? [[tool:mcp__files__read_file {"path":"notes.txt"}]]',
      { budget, extraTools, onToolCall: (event) => events.push(event) },
    )
    expect(result.text).toContain('The deploy window is Tuesday 14:00 UTC.')
    // The agent loop reports the call with the server and the tool's own name.
    expect(events.map((event) => [event.type, event.server, event.tool, event.wallet])).toEqual([
      ['tool-call', 'files', 'read_file', ADA_WALLET],
      ['tool-result', 'files', 'read_file', ADA_WALLET],
    ])
    expect(events[1]).not.toHaveProperty('error')
    // Two model calls and one MCP call; the MCP call's price is on the agent's wallet.
    expect(budget.spent().calls).toBe(result.usage.calls + 1)
    const byWallet = budget.spentByWallet()[ADA_WALLET]
    expect(byWallet?.calls).toBe(result.usage.calls + 1)
    expect(byWallet?.costUsd).toBeCloseTo(result.usage.costUsd + 0.01, 10)
  })

  it('gives an agent only the tools its card lists, and all of a server with mcp__<server>__*', async () => {
    const servers = stdioServers()
    const one = await servers.toolsFor(makeAgent({ tools: ['mcp__files__read_file'] }))
    expect(Object.keys(one)).toEqual(['mcp__files__read_file'])
    const all = await servers.toolsFor(makeAgent({ tools: ['mcp__files__*'] }))
    expect(Object.keys(all).sort()).toEqual(
      expect.arrayContaining(['mcp__files__read_file', 'mcp__files__slow', 'mcp__files__stats']),
    )
    const none = await servers.toolsFor(makeAgent({ tools: ['search'] }))
    expect(none).toEqual({})
    expect(servers.status()[0]?.state).not.toBe('closed')
  })

  it('refuses a tool the card does not list, even when the runtime offers it', async () => {
    const servers = stdioServers()
    const extraTools = await servers.toolsFor(makeAgent({ tools: ['mcp__files__*'] }))
    const narrowCard = makeAgent({ tools: ['mcp__files__read_file'] })
    await expect(
      runAgent(narrowCard, 'hi', {
        budget: createBudget({ calls: 3 }),
        extraTools,
        tools: ['mcp__files__slow'],
      }),
    ).rejects.toBeInstanceOf(ToolNotAllowedError)
    // Offered but not listed: the model's call of it is never executed.
    const result = await runAgent(narrowCard, 'pid? [[tool:mcp__files__pid]]', {
      budget: createBudget({ calls: 3 }),
      extraTools,
    })
    expect(result.steps[0]?.toolResults[0]?.output).toEqual({
      error: expect.stringContaining("unavailable tool 'mcp__files__pid'"),
    })
  })

  it('keeps a server above the agent’s trust tier out of its tools', async () => {
    const servers = stdioServers({ minTrustTier: 'high' })
    const low = makeAgent({ tools: ['mcp__files__read_file'] })
    expect(await servers.toolsFor(low)).toEqual({})
    // Not even started for an agent that may not use it.
    expect(servers.status()[0]).toMatchObject({ state: 'idle' })
    await expect(
      runAgent(low, 'hi', {
        budget: createBudget({ calls: 2 }),
        extraTools: await servers.toolsFor(low),
      }),
    ).rejects.toBeInstanceOf(UnknownToolError)
    const high = makeAgent({
      tools: ['mcp__files__read_file'],
      agentCard: { capabilityDescription: 'Reads.', trustTier: 'high' },
    })
    expect(Object.keys(await servers.toolsFor(high))).toEqual(['mcp__files__read_file'])
    expect(servers.status()[0]).toMatchObject({ state: 'ready', pid: expect.any(Number) })
  })

  it('maps isError to a tool error the model reads, and structured content and images', async () => {
    const workspaceDir = await mkdtemp(path.join(tmpdir(), 'baton-mcp-ws-'))
    try {
      const servers = stdioServers()
      const tools = await servers.toolsFor(makeAgent({ tools: ['mcp__files__*'] }), {
        workspaceDir,
      })
      const call = (name: string, input: unknown) =>
        tools[name]!.execute!(input as never, { toolCallId: 't', messages: [] })
      await expect(call('mcp__files__read_file', { path: 'missing.txt' })).rejects.toMatchObject({
        code: 'MCP_TOOL_ERROR',
        message: 'cannot read missing.txt: ENOENT',
      })
      await expect(call('mcp__files__read_file', { path: 'missing.txt' })).rejects.toBeInstanceOf(
        McpToolError,
      )
      expect(await call('mcp__files__stats', { path: 'notes.txt' })).toMatchObject({
        structured: { bytes: 40, lines: 2 },
      })
      const picture = (await call('mcp__files__picture', {})) as { files: string[]; text: string }
      expect(picture.files).toHaveLength(1)
      expect(await readdir(workspaceDir)).toEqual(picture.files)
      const bytes = await readFile(path.join(workspaceDir, picture.files[0]!))
      expect(bytes.subarray(1, 4).toString()).toBe('PNG')
      // A model that asks gets the error text back as the call's result.
      const agent = makeAgent({ tools: ['mcp__files__read_file'] })
      const events: ToolCallEvent[] = []
      const result = await runAgent(
        agent,
        'x [[tool:mcp__files__read_file {"path":"missing.txt"}]]',
        {
          budget: createBudget({ calls: 5 }),
          extraTools: tools,
          onToolCall: (event) => events.push(event),
        },
      )
      expect(result.text).toContain('cannot read missing.txt: ENOENT')
      expect(events.at(-1)).toMatchObject({
        type: 'tool-result',
        server: 'files',
        tool: 'read_file',
        error: { code: 'MCP_TOOL_ERROR', message: 'cannot read missing.txt: ENOENT' },
      })
    } finally {
      await rm(workspaceDir, { recursive: true, force: true })
    }
  })

  it('cancels a call on timeout and on the run’s abort, and the server hears of it', async () => {
    const servers = stdioServers({ timeoutMs: 300 })
    const tools = await servers.toolsFor(makeAgent({ tools: ['mcp__files__slow'] }))
    const marker = path.join(root, 'cancelled.txt')
    await rm(marker, { force: true })
    await expect(
      tools.mcp__files__slow!.execute!({ ms: 20_000 }, { toolCallId: 't', messages: [] }),
    ).rejects.toBeInstanceOf(McpTimeoutError)
    expect(await waitFor(() => readFile(marker, 'utf8').catch(() => undefined))).toBe('20000')

    await rm(marker, { force: true })
    const generous = stdioServers({ timeoutMs: 30_000 })
    const slow = (await generous.toolsFor(makeAgent({ tools: ['mcp__files__slow'] })))
      .mcp__files__slow!
    const controller = new AbortController()
    const call = slow.execute!(
      { ms: 20_001 },
      {
        toolCallId: 't',
        messages: [],
        abortSignal: controller.signal,
      },
    )
    setTimeout(() => controller.abort(new Error('the run was cancelled')), 200)
    await expect(call).rejects.toThrow('the run was cancelled')
    expect(await waitFor(() => readFile(marker, 'utf8').catch(() => undefined))).toBe('20001')
  })

  it('leaves no listener on a long-lived signal after its calls, and still aborts by it', async () => {
    const tools = await stdioServers().toolsFor(makeAgent({ tools: ['mcp__files__*'] }))
    // A run's signal (or its budget's) outlives many calls: each call must let go of it.
    const controller = new AbortController()
    for (let index = 0; index < 12; index += 1) {
      await tools.mcp__files__read_file!.execute!(
        { path: 'notes.txt' },
        { toolCallId: `t${index}`, messages: [], abortSignal: controller.signal },
      )
    }
    await expect(
      tools.mcp__files__slow!.execute!(
        { ms: 1 },
        { toolCallId: 'quick', messages: [], abortSignal: controller.signal },
      ),
    ).resolves.toBeDefined()
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)

    const marker = path.join(root, 'cancelled.txt')
    await rm(marker, { force: true })
    const call = tools.mcp__files__slow!.execute!(
      { ms: 20_002 },
      { toolCallId: 'slow', messages: [], abortSignal: controller.signal },
    )
    setTimeout(() => controller.abort(new Error('the run was cancelled')), 200)
    await expect(call).rejects.toThrow('the run was cancelled')
    expect(await waitFor(() => readFile(marker, 'utf8').catch(() => undefined))).toBe('20002')
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })

  it('passes on only the environment its settings name, and starts in its cwd', async () => {
    process.env.BATON_MCP_TEST_ALLOWED = 'allowed'
    process.env.BATON_MCP_TEST_SECRET = 'secret'
    try {
      const servers = stdioServers({
        envAllowlist: ['BATON_MCP_TEST_ALLOWED'],
        env: { BATON_MCP_TEST_GIVEN: 'given' },
        cwd: root,
      })
      const tools = await servers.toolsFor(makeAgent({ tools: ['mcp__files__env'] }))
      const read = async (name: string) =>
        JSON.parse(
          String(
            await tools.mcp__files__env!.execute!({ name }, { toolCallId: 't', messages: [] }),
          ),
        ) as { value: string | null; cwd: string }
      expect((await read('BATON_MCP_TEST_ALLOWED')).value).toBe('allowed')
      expect((await read('BATON_MCP_TEST_GIVEN')).value).toBe('given')
      // Not named: this process's variable never reaches the server.
      expect((await read('BATON_MCP_TEST_SECRET')).value).toBeNull()
      expect((await read('PATH')).value).toBeTruthy()
      expect((await read('PATH')).cwd).toBe(root)
    } finally {
      delete process.env.BATON_MCP_TEST_ALLOWED
      delete process.env.BATON_MCP_TEST_SECRET
    }
  })

  it('restarts a stdio server that died; calls meanwhile fail with MCP_SERVER_UNAVAILABLE', async () => {
    const servers = stdioServers({}, { initialMs: 1500, maxMs: 1500 })
    const tools = await servers.toolsFor(makeAgent({ tools: ['mcp__files__pid'] }))
    const pid = async () =>
      Number(await tools.mcp__files__pid!.execute!({}, { toolCallId: 't', messages: [] }))
    const first = await pid()
    expect(servers.status()[0]?.pid).toBe(first)
    process.kill(first, 'SIGKILL')
    await waitFor(() => (servers.status()[0]?.state === 'restarting' ? true : undefined))
    const error = await pid().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(McpServerUnavailableError)
    expect((error as McpServerUnavailableError).message).toContain(
      'MCP server "files" is unavailable',
    )
    const second = await waitFor(() => pid().catch(() => undefined))
    expect(second).not.toBe(first)
    expect(isAlive(second)).toBe(true)
  })

  it('refreshes its cached tool list when the server says it changed', async () => {
    const servers = stdioServers()
    const before = (await servers.listTools()).tools.map((tool) => tool.name)
    expect(before).not.toContain('mcp__files__late')
    const tools = await servers.toolsFor(makeAgent({ tools: ['mcp__files__add_tool'] }))
    await tools.mcp__files__add_tool!.execute!({ name: 'late' }, { toolCallId: 't', messages: [] })
    await waitFor(async () => {
      const names = (await servers.listTools()).tools.map((tool) => tool.name)
      return names.includes('mcp__files__late') ? true : undefined
    })
  })

  it('stops the server process on close, and reports a command that does not start', async () => {
    const servers = stdioServers()
    await servers.listTools()
    const pid = servers.status()[0]?.pid
    expect(pid).toBeGreaterThan(0)
    await servers.close()
    await waitFor(() => (isAlive(pid!) ? undefined : true))

    const broken = createMcpServers({
      mcpServers: { gone: { command: '/nonexistent/mcp-server' } },
    })
    open.push(broken)
    const listed = await broken.listTools()
    expect(listed.tools).toEqual([])
    expect(listed.unavailable[0]).toMatchObject({ server: 'gone' })
    expect(listed.unavailable[0]?.message).toContain('MCP server "gone" is unavailable')
  })
})

describe('createMcpServers over Streamable HTTP', () => {
  it('lists and calls the tools of a server reached by URL', async () => {
    const server = await startServerProcess({
      entry: fixture,
      args: [root, '--http'],
      listening: /listening (\S+)/,
    })
    try {
      const url = server.url
      const servers = createMcpServers({
        mcpServers: { remote: { url, headers: { 'X-Baton-Test': 'sent' } } },
      })
      open.push(servers)
      const { tools } = await servers.listTools()
      expect(tools.map((tool) => tool.name)).toContain('mcp__remote__read_file')
      // The settings' headers go with every request.
      const env = (await servers.toolsFor(makeAgent({ tools: ['mcp__remote__env'] })))
        .mcp__remote__env!
      const seen = JSON.parse(
        String(await env.execute!({ name: 'X-Baton-Test' }, { toolCallId: 't', messages: [] })),
      ) as { header: string | null }
      expect(seen.header).toBe('sent')
      const agent = makeAgent({ tools: ['mcp__remote__read_file'] })
      const result = await runAgent(
        agent,
        'x [[tool:mcp__remote__read_file {"path":"notes.txt"}]]',
        {
          budget: createBudget({ calls: 5 }),
          extraTools: await servers.toolsFor(agent),
        },
      )
      expect(result.text).toContain('Tuesday 14:00 UTC')
    } finally {
      await server.stop({ signal: 'SIGKILL' })
    }
  })
})
