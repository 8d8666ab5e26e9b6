import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenTestApp } from '../__fixtures__/listen-test-app'

const malCli = fileURLToPath(new URL('../../../../packages/mal/src/cli.ts', import.meta.url))
const token = 'bridge-test-token-0123456789'
let app: FastifyInstance
let address: string

beforeAll(async () => {
  ;({ app, base: address } = await listenTestApp({ settings: { apiToken: token } }))
})
afterAll(async () => {
  await app?.close()
})

describe('mal mcp --server', () => {
  it('offers the server’s MCP tools over stdio, to a client that only starts commands', async () => {
    const client = new Client({ name: 'stdio-only', version: '1.0.0' })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', '--conditions=@baton/source', malCli, 'mcp', '--server', address],
        env: { PATH: process.env.PATH ?? '', BATON_API_TOKEN: token },
        stderr: 'ignore',
      }),
    )
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['list_agents', 'delegate', 'run_plan', 'answer_run', 'get_run']),
      )
      const result = await client.callTool({
        name: 'delegate',
        arguments: { agent: 'analyst', prompt: 'One risk of a Friday deploy?' },
      })
      expect(result.isError).toBeFalsy()
      expect(JSON.stringify(result.content)).toContain('One risk of a Friday deploy?')
      expect((result.structuredContent as { status: string }).status).toBe('done')
      // Progress of a long call comes through the bridge while the call is pending.
      let answered = false
      let early = 0
      const slow = await client.callTool(
        { name: 'delegate', arguments: { agent: 'analyst', prompt: 'Slowly [[sleep:2000]]' } },
        undefined,
        {
          onprogress: () => {
            if (!answered) early += 1
          },
        },
      )
      answered = true
      expect(slow.isError).toBeFalsy()
      expect(early).toBeGreaterThan(1)
    } finally {
      await client.close()
    }
  })
})
