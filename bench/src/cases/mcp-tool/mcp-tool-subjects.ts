import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent, createBudget, runAgent } from '@baton/core'
import { createMcpServers } from '@baton/core/mcp'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { timePerOperation, timing } from '../../measure'
import { timedFigure } from '../../report/timed-figure'
import type { Figure, Subjects } from '../types'
import { mcpCallCount } from './mcp-tool-case'

const filesServer = fileURLToPath(
  new URL('../../../../packages/core/src/mcp/__fixtures__/files-server.mjs', import.meta.url),
)

/** The folder the files server reads, with one file in it; removed by the caller when done. */
async function folder(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'bench-mcp-'))
  await writeFile(path.join(root, 'notes.txt'), 'bench\n')
  return root
}

// Both subjects are timed warm, as a server that has served a while calls its tools, with the
// client process's CPU (its compiler threads included) and the first loop's time beside. Both
// processes of a call warm up: V8 compiles the client's path and the server's, and on 2 cores
// those threads take turns with the calls. Baton's path (the agent loop, two model calls, the
// SDK's client) took 3 000–4 000 calls (4–5 s) to settle, the SDK client alone about 1 000.
async function loop(count: number, call: () => Promise<unknown>): Promise<Figure> {
  const timed = await timePerOperation({
    operations: count,
    warmUpMs: 6 * timing.warmUpMs,
    minMs: 3 * timing.minMs,
    work: async () => {
      for (let index = 0; index < count; index += 1) await call()
    },
  })
  return timedFigure(timed)
}

export const mcpToolSubjects: Subjects = {
  bare: async (size) => {
    const root = await folder()
    const client = new Client({ name: 'bench', version: '1.0.0' })
    try {
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: [filesServer, root] }),
      )
      return await loop(mcpCallCount(size), () =>
        client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } }),
      )
    } finally {
      await client.close()
      await rm(root, { recursive: true, force: true })
    }
  },

  baton: async (size) => {
    const root = await folder()
    const servers = createMcpServers({
      mcpServers: { files: { command: process.execPath, args: [filesServer, root] } },
    })
    const agent = Agent.parse({
      id: 'reader',
      wallet: '0x52908400098527886E0F7030069857D2E4169EE7',
      creator: '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
      name: 'Reader',
      type: 'worker',
      model: 'offline:default',
      tools: ['mcp__files__read_file'],
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    })
    const budget = createBudget()
    try {
      const extraTools = await servers.toolsFor(agent, { budget })
      return await loop(mcpCallCount(size), () =>
        runAgent(agent, 'Read [[tool:mcp__files__read_file {"path":"notes.txt"}]]', {
          budget,
          extraTools,
        }),
      )
    } finally {
      await servers.close()
      await rm(root, { recursive: true, force: true })
    }
  },
}
