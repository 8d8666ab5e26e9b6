import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM, chromiumAvailable } from '../__fixtures__/chromium'
import { createTestApp } from '../__fixtures__/test-app'
import { readSettings } from '../settings'
import { converse, hostAgent, spendOf } from './__fixtures__/hosted-agents'

// The worker's own directives, escaped so the lead's offline model does not read them as its own.
const nested = (directive: string) =>
  JSON.stringify(directive).slice(1, -1).replaceAll('[', '\\u005b').replaceAll(']', '\\u005d')
const start = (agentId: string, task: string) =>
  `[[tool:start_subagent {"agentId":"${agentId}","workspace":"browser","task":"${nested(task)}"}]]`

describe.runIf(chromiumAvailable('the start_subagent browser tests'))(
  'createAgentHost: start_subagent with a browser',
  () => {
    let app: FastifyInstance
    let page: http.Server
    let origin: string
    beforeAll(async () => {
      page = http.createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' })
        response.end('<title>Queue</title><p>Queue depth: 7</p>')
      })
      await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve))
      origin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`
      app = await createTestApp({
        browserWorkspaces: {
          allowedOrigins: [origin],
          allowLoopback: true,
          executablePath: CHROMIUM,
        },
      })
      await hostAgent(app, 'lead', { agentCard: { canDelegate: true } })
      await hostAgent(app, 'browser-worker', { tools: ['open_page', 'read_page'] })
      await hostAgent(app, 'file-worker', { tools: ['write_file'] })
    })
    afterAll(async () => {
      await app?.close()
      page?.closeAllConnections()
      page?.close()
    })

    it('runs the sub-agent in a browser of its own', async () => {
      const messages = await converse(
        app,
        'lead',
        start('browser-worker', `[[tool:open_page {"url":"${origin}/"}]][[tool:read_page]]`),
      )
      expect(messages.at(-1)!.content).toContain('Queue depth: 7')
    })

    it('refuses a worker whose card lists no browser tool, before it spends', async () => {
      const messages = await converse(app, 'lead', start('file-worker', 'read the queue'))
      const reply = messages.at(-1)!.content
      expect(reply).toContain('start_subagent → error:')
      expect(reply).toContain('needs an agent whose tools include some of open_page')
      const worker = await app.baton.repositories.agents.findById('file-worker')
      expect((await spendOf(app, worker!.wallet)).calls).toBe(0)
    })
  },
)

describe('browser and display settings', () => {
  it('enables browser workspaces only with BATON_BROWSER_ORIGINS', () => {
    expect(readSettings({}).browserWorkspaces).toBeUndefined()
    expect(
      readSettings({ BATON_BROWSER_ORIGINS: 'https://a.example, https://b.example' })
        .browserWorkspaces,
    ).toEqual({
      allowedOrigins: ['https://a.example', 'https://b.example'],
      allowLoopback: false,
      executablePath: '/usr/bin/chromium',
    })
  })

  it('reads BATON_DISPLAY_APPS as JSON, naming what is wrong', () => {
    expect(readSettings({}).displayWorkspaces).toBeUndefined()
    expect(
      readSettings({ BATON_DISPLAY_APPS: '{"editor":{"command":"mousepad"}}' }).displayWorkspaces,
    ).toEqual({ apps: { editor: { command: 'mousepad' } } })
    expect(() => readSettings({ BATON_DISPLAY_APPS: '{editor' })).toThrow(
      /BATON_DISPLAY_APPS: must be JSON/,
    )
    expect(() => readSettings({ BATON_DISPLAY_APPS: '{"editor":{"cmd":"x"}}' })).toThrow(
      /BATON_DISPLAY_APPS: editor/,
    )
  })
})
