import { rmSync } from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { SEEDED_AGENT, startBatonServer } from '../../servers/start-baton-server'
import type { StartedServer } from '../../servers/types'
import type { Figure, Size, Subjects } from '../types'
import { delegateCount } from './mcp-delegate-case'

// The run the `delegate` tool starts (see apps/server/src/mcp/create-baton-mcp-server.ts).
const plan = {
  name: `delegate to ${SEEDED_AGENT.id}`,
  inputs: { prompt: 'string' },
  steps: [
    {
      op: 'delegate',
      saveAs: 'answer',
      agentWallet: SEEDED_AGENT.wallet,
      prompt: '{{inputs.prompt}}',
    },
    { op: 'stop', output: '{{answer}}' },
  ],
}
const prompt = 'One risk of a Friday deploy?'

let shared: Promise<StartedServer> | undefined

/**
 * A Baton server for one subject. The smoke test measures both subjects in one process: there
 * they share one server (one boot, not two), whose data folder goes when the process exits. A
 * full run measures each subject in a process of its own, on a server of its own.
 */
async function batonServer(
  size: Size,
): Promise<{ server: StartedServer; done: () => Promise<unknown> }> {
  if (size === 'full') {
    const server = await startBatonServer()
    return { server, done: () => server.close() }
  }
  shared ??= startBatonServer().then((server) => {
    const { dataDir } = server
    if (dataDir) process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }))
    return server
  })
  return { server: await shared, done: async () => {} }
}

/** Times `count` delegations one after another, after a warm-up; ms per delegation. */
async function timeDelegations(size: Size, delegate: () => Promise<void>): Promise<Figure> {
  const count = delegateCount(size)
  for (let index = 0; index < Math.ceil(count / 5); index += 1) await delegate()
  const started = performance.now()
  for (let index = 0; index < count; index += 1) await delegate()
  return { value: (performance.now() - started) / count, details: { delegations: count } }
}

/** Reads a run's event stream to its end; answers with the `run-finish` event's status. */
async function followEvents(url: string): Promise<string> {
  const response = await fetch(url, { headers: { accept: 'text/event-stream' } })
  if (!response.ok || !response.body) throw new Error(`events: HTTP ${response.status}`)
  const text = await response.text()
  const finish = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; status?: string })
    .findLast((event) => event.type === 'run-finish')
  if (!finish?.status) throw new Error('the event stream ended without run-finish')
  return finish.status
}

export const mcpDelegateSubjects: Subjects = {
  async bare(size) {
    const { server, done } = await batonServer(size)
    try {
      return await timeDelegations(size, async () => {
        const started = await fetch(new URL('/api/v1/runs', server.url), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ plan, inputs: { prompt } }),
        })
        if (started.status !== 202) throw new Error(`POST /api/v1/runs: HTTP ${started.status}`)
        const { id } = (await started.json()) as { id: string }
        const status = await followEvents(new URL(`/api/v1/runs/${id}/events`, server.url).href)
        if (status !== 'done') throw new Error(`run ${id} ended ${status}`)
      })
    } finally {
      await done()
    }
  },

  async baton(size) {
    const { server, done } = await batonServer(size)
    const client = new Client({ name: 'bench', version: '1.0.0' })
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url)))
      return await timeDelegations(size, async () => {
        const result = await client.callTool({
          name: 'delegate',
          arguments: { agent: SEEDED_AGENT.id, prompt },
        })
        const status = (result.structuredContent as { status?: string } | undefined)?.status
        if (result.isError || status !== 'done') {
          throw new Error(`delegate over /mcp: ${JSON.stringify(result.content).slice(0, 200)}`)
        }
      })
    } finally {
      await client.close().catch(() => {})
      await done()
    }
  },
}
