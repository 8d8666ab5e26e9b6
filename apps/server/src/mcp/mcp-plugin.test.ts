import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { signAgentRegistration } from '@baton/core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  CallToolResultSchema,
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  McpError,
} from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenTestApp } from '../__fixtures__/listen-test-app'
import { newAgentAccounts } from '../__fixtures__/signed-agents'
import { testRegistryId } from '../settings'

const filesServer = fileURLToPath(
  new URL('../../../../packages/core/src/mcp/__fixtures__/files-server.mjs', import.meta.url),
)
const token = 'mcp-test-token-0123456789'
let folder: string
let app: FastifyInstance
let url: URL
const clients: Client[] = []

async function connect(headers: Record<string, string> = { authorization: `Bearer ${token}` }) {
  const client = new Client({ name: 'test-client', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }))
  clients.push(client)
  return client
}

type McpAnswer = {
  id: string
  result?: { tools: { name: string }[] }
  error?: { code: number; message: string; data?: unknown }
}

const structured = (result: unknown) =>
  (result as { structuredContent: Record<string, unknown> }).structuredContent
const text = (result: unknown) =>
  ((result as { content: { text: string }[] }).content[0]?.text ?? '') as string

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'baton-mcp-server-'))
  const config = path.join(folder, 'mcp.json')
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: { files: { command: process.execPath, args: [filesServer, folder] } },
    }),
  )
  let base: string
  ;({ app, base } = await listenTestApp({ settings: { apiToken: token, mcpConfig: config } }))
  url = new URL('/mcp', base)
})
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})))
  await app?.close()
  await rm(folder, { recursive: true, force: true })
})

describe('/mcp: Baton as an MCP server', () => {
  it('needs the API token like the HTTP API', async () => {
    await expect(connect({})).rejects.toThrow(/401|UNAUTHORIZED/)
  })

  it('lists the seeded agents and its tools', async () => {
    const client = await connect()
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'answer_run',
      'delegate',
      'get_run',
      'list_agents',
      'run_plan',
    ])
    const listed = structured(await client.callTool({ name: 'list_agents', arguments: {} }))
    const ids = (listed.agents as { id: string }[]).map((agent) => agent.id)
    expect(ids).toEqual(expect.arrayContaining(['orchestrator', 'analyst', 'reviewer', 'tester']))
    const filtered = structured(
      await client.callTool({ name: 'list_agents', arguments: { query: 'analyst' } }),
    )
    expect((filtered.agents as { id: string }[]).map((agent) => agent.id)).toContain('analyst')
    const idsOf = async (args: Record<string, unknown>) =>
      (
        structured(await client.callTool({ name: 'list_agents', arguments: args })).agents as {
          id: string
        }[]
      ).map((agent) => agent.id)
    expect(await idsOf({ capability: 'review' })).toEqual(['reviewer'])
    const trusted = await idsOf({ trustTier: 'medium' })
    expect(trusted).toEqual(expect.arrayContaining(['orchestrator', 'analyst']))
    expect(trusted).not.toContain('reviewer')
  })

  it('refuses a request whose params its method does not take with -32602 naming the field, and the session goes on', async () => {
    const client = await connect()
    const refusal = (request: { method: string; params?: Record<string, unknown> }) =>
      client.request(request as never, CallToolResultSchema).then(
        () => undefined,
        (error: unknown) => error as McpError,
      )
    const noName = await refusal({ method: 'tools/call', params: { arguments: {} } })
    expect(noName).toBeInstanceOf(McpError)
    expect(noName?.code).toBe(ErrorCode.InvalidParams)
    expect(noName?.message).toMatch(
      /Invalid params for tools\/call: params\.name: .*expected string/,
    )
    expect(noName?.data).toEqual({ field: 'params.name' })
    const badArguments = await refusal({
      method: 'tools/call',
      params: { name: 'list_agents', arguments: 'all of them' },
    })
    expect(badArguments?.code).toBe(ErrorCode.InvalidParams)
    expect(badArguments?.data).toEqual({ field: 'params.arguments' })
    expect((await refusal({ method: 'ping', params: { _meta: 'now' } }))?.data).toEqual({
      field: 'params._meta',
    })
    // A method this server does not answer is not found, whatever its params.
    const unanswered = await refusal({ method: 'logging/setLevel', params: { level: 'loud' } })
    expect(unanswered?.code).toBe(ErrorCode.MethodNotFound)
    // The session is unharmed: the same call with its name is answered.
    const listed = structured(await client.callTool({ name: 'list_agents', arguments: {} }))
    expect(listed.agents).toBeInstanceOf(Array)

    // An initialize without the client's name and version starts no session.
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'init-1',
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {} },
      }),
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('mcp-session-id')).toBeNull()
    expect(await response.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 'init-1',
      error: { code: -32602, data: { field: 'params.clientInfo' } },
    })
  })

  it('refuses a bad request inside a batch with -32602 naming its field, and answers the rest', async () => {
    const client = await connect()
    const transport = client.transport as StreamableHTTPClientTransport
    const post = (batch: unknown[]) =>
      fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': transport.sessionId ?? '',
          'mcp-protocol-version': transport.protocolVersion ?? LATEST_PROTOCOL_VERSION,
        },
        body: JSON.stringify(batch),
      })
    const response = await post([
      { jsonrpc: '2.0', id: 'batch-1', method: 'tools/call', params: { arguments: {} } },
      { jsonrpc: '2.0', id: 'batch-2', method: 'tools/list' },
      {
        jsonrpc: '2.0',
        id: 'batch-3',
        method: 'tools/call',
        params: { name: 'list_agents', arguments: 'all' },
      },
    ])
    expect(response.status).toBe(200)
    const answers = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line.length > 'data: '.length)
      .map((line) => JSON.parse(line.slice('data: '.length)) as McpAnswer)
    const byId = new Map(answers.map((answer) => [answer.id, answer]))
    expect(byId.get('batch-1')?.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Invalid params for tools\/call: params\.name/),
      data: { field: 'params.name' },
    })
    expect(byId.get('batch-2')?.result?.tools.map((tool) => tool.name)).toContain('delegate')
    expect(byId.get('batch-3')?.error).toMatchObject({
      code: -32602,
      data: { field: 'params.arguments' },
    })
    // A message that is not JSON-RPC at all refuses the whole batch, before any of it runs.
    const unparsed = await post([
      { jsonrpc: '2.0', id: 'batch-4', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'batch-5', method: 'ping', params: { _meta: 'now' } },
    ])
    expect(unparsed.status).toBe(400)
    expect(await unparsed.json()).toMatchObject({ error: { code: -32700 } })
    // The session is unharmed.
    expect(
      structured(await client.callTool({ name: 'list_agents', arguments: {} })).agents,
    ).toBeInstanceOf(Array)
  })

  it('delegates to the analyst and answers with its text, its spend by wallet and the run id', async () => {
    const client = await connect()
    const analyst = await app.baton.repositories.agents.findById('analyst')
    const result = await client.callTool({
      name: 'delegate',
      arguments: {
        agent: 'analyst',
        prompt: 'Risks of moving {{the}} billing database?',
        budget: { calls: 5 },
      },
    })
    expect(result.isError).toBeFalsy()
    expect(text(result)).toContain('Risks of moving {{the}} billing database?')
    const facts = structured(result)
    expect(facts.status).toBe('done')
    expect(Object.keys(facts.usageByWallet as object)).toContain(analyst!.wallet)
    const run = await app.baton.repositories.runs.find(String(facts.runId))
    expect(run?.status).toBe('done')
    // An unknown agent is a tool error the client reads, not a protocol failure.
    const unknown = await client.callTool({
      name: 'delegate',
      arguments: { agent: 'nobody', prompt: 'x' },
    })
    expect(unknown.isError).toBe(true)
    expect(text(unknown)).toContain('No agent "nobody"')
  })

  it("answers a tool's untyped fault with the id it is logged under, never its text", async () => {
    const client = await connect()
    const agents = app.baton.repositories.agents
    const list = agents.list
    const logError = app.log.error
    const logged: unknown[][] = []
    // A fault no Baton error types (a bug), whose text names what only the operator may read.
    agents.list = async () => {
      throw new Error('connect ECONNREFUSED 10.0.3.7:5432')
    }
    app.log.error = ((...args: unknown[]) => {
      logged.push(args)
    }) as typeof app.log.error
    try {
      const result = await client.callTool({ name: 'list_agents', arguments: {} })
      expect(result.isError).toBe(true)
      const told = text(result)
      expect(told).not.toContain('10.0.3.7')
      const errorId =
        /^INTERNAL: Internal error: the server's log has it under error id ([0-9a-f-]{36})\.$/.exec(
          told,
        )?.[1]
      expect(errorId, told).toBeDefined()
      expect(logged).toHaveLength(1)
      expect(logged[0]![0]).toMatchObject({
        errorId,
        tool: 'list_agents',
        err: { message: 'connect ECONNREFUSED 10.0.3.7:5432' },
      })
    } finally {
      agents.list = list
      app.log.error = logError
    }
    // The session goes on.
    const again = await client.callTool({ name: 'list_agents', arguments: {} })
    expect(again.isError).toBeFalsy()
  })

  it('holds a delegation to the budget it is given, and refuses a limit it does not know rather than run unbounded', async () => {
    const client = await connect()
    const delegate = (budget: unknown) =>
      client.callTool({ name: 'delegate', arguments: { agent: 'analyst', prompt: 'hi', budget } })
    const misspelt = await delegate({ maxUsd: 0.01 })
    expect(misspelt.isError).toBe(true)
    expect(text(misspelt)).toContain('Unrecognized key: "maxUsd" at budget')
    // A misspelt argument is refused as well: dropped, the delegation would run on the
    // server's default budget, and nothing would have been started.
    const before = (await app.baton.repositories.runs.list({ limit: 1, offset: 0 })).total
    const astray = await client.callTool({
      name: 'delegate',
      arguments: { agent: 'analyst', prompt: 'hi', budjet: { costUsd: 0 } },
    })
    expect(astray.isError).toBe(true)
    expect(text(astray)).toContain('Unrecognized key: "budjet"')
    expect((await app.baton.repositories.runs.list({ limit: 1, offset: 0 })).total).toBe(before)
    // The HTTP API's names for the limits are taken, and hold.
    for (const budget of [{ costUsd: 0 }, { maxWallMs: 0 }, { calls: 0 }]) {
      expect(structured(await delegate(budget))).toMatchObject({
        status: 'failed',
        error: { code: 'BUDGET_EXCEEDED' },
      })
    }
  })

  it('sends progress while a long delegation runs, before its answer', async () => {
    const client = await connect()
    let answered = false
    const early: { progress: number; message?: string }[] = []
    const result = await client.callTool(
      {
        name: 'delegate',
        // The offline model takes 2.5 s over its answer: a call long enough to hear from.
        arguments: { agent: 'analyst', prompt: 'Slowly, please [[sleep:2500]]' },
      },
      undefined,
      {
        onprogress: (progress) => {
          if (!answered) early.push(progress)
        },
      },
    )
    answered = true
    expect(structured(result).status).toBe('done')
    // Heard while the call was still pending, each one counting up, naming the run.
    expect(early.length).toBeGreaterThan(1)
    expect(early.map((progress) => progress.progress)).toEqual(early.map((_, index) => index + 1))
    expect(early.at(-1)?.message).toBe(`run ${String(structured(result).runId)}: running`)
  })

  it('runs a plan that asks, and continues it with answer_run', async () => {
    const client = await connect()
    const plan = `inputs: { change: string }
steps:
  - op: ask_user
    saveAs: approve
    question: "Approve {{inputs.change}}?"
  - op: stop
    output: "approved: {{approve}}"
`
    const asked = await client.callTool({
      name: 'run_plan',
      arguments: { plan, inputs: { change: 'the migration' } },
    })
    const facts = structured(asked)
    expect(facts).toMatchObject({ status: 'paused', question: 'Approve the migration?' })
    expect(text(asked)).toContain('answer_run')
    const answered = await client.callTool({
      name: 'answer_run',
      arguments: { runId: String(facts.runId), answer: 'yes' },
    })
    expect(structured(answered)).toMatchObject({ status: 'done', output: 'approved: yes' })
    const got = await client.callTool({
      name: 'get_run',
      arguments: { runId: String(facts.runId) },
    })
    expect(structured(got)).toMatchObject({ status: 'done' })
    const refused = await client.callTool({
      name: 'run_plan',
      arguments: { plan: 'steps: [{ op: nope }]' },
    })
    expect(refused.isError).toBe(true)
    expect(text(refused)).toContain('PLAN_INVALID')
    expect(text(refused)).toContain('steps[0].op: unknown op')
  })

  it('cancels the run when the client cancels a long call, down to the MCP tool it waits on', async () => {
    const accounts = newAgentAccounts('slow-worker')
    const agent = { ...accounts.agent, tools: ['mcp__files__slow'] }
    const registered = await app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      headers: { authorization: `Bearer ${token}` },
      payload: await signAgentRegistration(agent, { ...accounts, registry: testRegistryId }),
    })
    expect(registered.statusCode).toBe(201)
    const client = await connect()
    const controller = new AbortController()
    const call = client.callTool(
      {
        name: 'delegate',
        arguments: { agent: 'slow-worker', prompt: '[[tool:mcp__files__slow {"ms":30000}]]' },
      },
      undefined,
      { signal: controller.signal, timeout: 60_000 },
    )
    // Wait for the run to be running, then give up.
    let runId: string | undefined
    for (let attempt = 0; attempt < 200 && !runId; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      const { runs } = await app.baton.repositories.runs.list({
        limit: 5,
        offset: 0,
        status: 'running',
      })
      runId = runs.find((run) => JSON.stringify(run.plan).includes('slow-worker'))?.id
    }
    expect(runId).toBeDefined()
    controller.abort(new Error('the client gave up'))
    await expect(call).rejects.toThrow()
    let status = ''
    for (let attempt = 0; attempt < 200 && status !== 'cancelled'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      status = (await app.baton.repositories.runs.find(runId!))?.status ?? ''
    }
    expect(status).toBe('cancelled')
    // The MCP tool call the agent was waiting on was cancelled too.
    const marker = path.join(folder, 'cancelled.txt')
    let cancelled = ''
    for (let attempt = 0; attempt < 200 && !cancelled; attempt += 1) {
      cancelled = await readFile(marker, 'utf8').catch(() => '')
      if (!cancelled) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(cancelled).toBe('30000')
  })
})
