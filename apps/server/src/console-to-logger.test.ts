import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import Fastify from 'fastify'
import { afterAll, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from './__fixtures__/server-process'
import { routeConsoleToLogger } from './console-to-logger'

/** The JSON lines a logger wrote, parsed. */
function collectingLogger() {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  return { log: Fastify({ logger: { level: 'debug', stream } }).log, lines }
}

describe('routeConsoleToLogger', () => {
  it('writes each console call as one log line at its level, an Error as the line’s err, and puts the console back', () => {
    const { log, lines } = collectingLogger()
    const original = console.warn
    const restore = routeConsoleToLogger(log)
    try {
      console.warn('Reference task %s not found.', 'r-1')
      console.error('Event processing loop failed for task t-1:', new Error('store refused'))
      console.log('plain', { a: 1 })
      console.debug('details')
    } finally {
      restore()
    }
    expect(console.warn).toBe(original)
    expect(lines).toMatchObject([
      { level: 40, source: 'console', msg: 'Reference task r-1 not found.' },
      {
        level: 50,
        source: 'console',
        msg: 'Event processing loop failed for task t-1: store refused',
        err: { message: 'store refused', stack: expect.stringContaining('Error: store refused') },
      },
      { level: 30, source: 'console', msg: 'plain { a: 1 }' },
      { level: 20, source: 'console', msg: 'details' },
    ])
  })
})

describe('the server process’s log', () => {
  let server: ServerProcess | undefined
  let dataDir: string | undefined
  afterAll(async () => {
    await server?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('carries what the A2A SDK writes to the console as JSON lines, not free text between them', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'baton-console-'))
    server = await startServerProcess({ BATON_DATA_DIR: dataDir })
    // The SDK warns on the console about a reference task it cannot find, and goes on.
    const response = await fetch(`${server.url}/a2a/analyst`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: {
            messageId: 'with-a-reference',
            role: 'ROLE_USER',
            parts: [{ text: 'summarise the refunds' }],
            referenceTaskIds: ['no-such-task'],
          },
        },
      }),
    })
    expect(((await response.json()) as { result?: unknown }).result).toBeDefined()
    const logged = () =>
      server!
        .output()
        .split('\n')
        .filter((line) => line.includes('Reference task no-such-task not found.'))
    await expect.poll(logged).toHaveLength(1)
    expect(JSON.parse(logged()[0]!)).toMatchObject({
      level: 40,
      source: 'console',
      msg: 'Reference task no-such-task not found.',
    })
  })
})
