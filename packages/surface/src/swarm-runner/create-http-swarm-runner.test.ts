import type { ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { makeSwarm } from '../__fixtures__/agents'
import { sendJson, startServer, type TestServer } from '../__fixtures__/http-server'
import { settled } from '../__fixtures__/swarm-runner'
import { createAdvancedAgentStore } from '../advanced-agent-store/create-advanced-agent-store'
import { createHttpSwarmRunner } from './create-http-swarm-runner'
import { SwarmRunRefusedError, SwarmServerError } from './swarm-runner-errors'
import type { SwarmRunEvent } from './types'

const runEvents: SwarmRunEvent[] = [
  { type: 'swarm-start', runId: 'run-7', swarmId: 'research', task: 'go' },
  { type: 'round-start', runId: 'run-7', round: 1 },
  {
    type: 'swarm-message',
    runId: 'run-7',
    round: 1,
    kind: 'work',
    agentId: 'analyst',
    content: 'line one\nline two',
  },
  { type: 'round-finish', runId: 'run-7', round: 1 },
  { type: 'swarm-finish', runId: 'run-7', result: { status: 'done', output: 'the answer' } },
]

function streamEvents(response: ServerResponse, events: unknown[], end = true) {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  response.write(': connected\n\n')
  let index = 0
  const next = () => {
    const event = events[index++]
    if (event === undefined) {
      if (end) response.end()
      return
    }
    // Split across writes on purpose: a reader must not rely on chunk boundaries.
    const text = `event: swarm\ndata: ${JSON.stringify(event)}\n\n`
    response.write(text.slice(0, 9))
    setTimeout(() => {
      response.write(text.slice(9))
      setTimeout(next, 5)
    }, 5)
  }
  next()
}

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('createHttpSwarmRunner', () => {
  it('starts a run over POST, streams its events over SSE into the store, and cancels over POST', async () => {
    let startBody = ''
    server = await startServer((request, response) => {
      if (request.method === 'POST' && request.url === '/swarms/research/runs') {
        request.on('data', (chunk) => (startBody += chunk))
        request.on('end', () => sendJson(response, 201, { runId: 'run-7' }))
      } else if (request.url === '/runs/run-7/events') {
        streamEvents(response, [
          runEvents[0],
          { type: 'something-newer', runId: 'run-7' },
          ...runEvents.slice(1),
        ])
      } else if (request.url === '/runs/run-7/cancel') {
        sendJson(response, 200, { cancelled: true })
      } else sendJson(response, 404, {})
    })
    const runner = createHttpSwarmRunner({ baseUrl: server.baseUrl })
    const store = createAdvancedAgentStore({ runner, swarms: [makeSwarm()] })
    const runId = await store.getState().startSwarmRun('research', 'Compare Q1 and Q2')
    expect(runId).toBe('run-7')
    expect(JSON.parse(startBody)).toEqual({ task: 'Compare Q1 and Q2' })
    await settled(store, runId)
    const run = store.getState().runs[runId]!
    expect(run).toMatchObject({ status: 'done', output: 'the answer', round: 1 })
    expect(run.events).toEqual(runEvents)
    expect(await runner.cancel!('run-7')).toBe(true)
    expect(server.requests).toContain('POST /runs/run-7/cancel')
  })

  it('rejects with the server’s code and message when it refuses a run', async () => {
    server = await startServer((_request, response) =>
      sendJson(response, 404, {
        error: { code: 'SWARM_NOT_FOUND', message: 'no swarm "ghost"' },
      }),
    )
    const runner = createHttpSwarmRunner({ baseUrl: server.baseUrl })
    const error = await runner.start('ghost', 'go').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(SwarmRunRefusedError)
    expect(error).toMatchObject({ code: 'SWARM_NOT_FOUND', status: 404 })
    expect((error as Error).message).toContain('no swarm "ghost"')
  })

  it('rejects with SwarmServerError for a 5xx, an answer without a run id, or a closed port', async () => {
    let answer: [number, unknown] = [503, {}]
    server = await startServer((_request, response) => sendJson(response, ...answer))
    const runner = createHttpSwarmRunner({ baseUrl: server.baseUrl })
    await expect(runner.start('research', 'go')).rejects.toThrow(/answered 503/)
    answer = [200, { ok: true }]
    await expect(runner.start('research', 'go')).rejects.toThrow(/no run id/)
    const closed = server.baseUrl
    await server.close()
    server = undefined
    const error = await createHttpSwarmRunner({ baseUrl: closed })
      .start('research', 'go')
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(SwarmServerError)
    expect(error).toMatchObject({ code: 'SWARM_SERVER_UNAVAILABLE' })
  })

  it('reports a stream that ends before swarm-finish as a swarm-error', async () => {
    server = await startServer((request, response) => {
      if (request.method === 'POST') sendJson(response, 201, { id: 'run-7' })
      else streamEvents(response, runEvents.slice(0, 2))
    })
    const store = createAdvancedAgentStore({
      runner: createHttpSwarmRunner({ baseUrl: server.baseUrl }),
      swarms: [makeSwarm()],
    })
    const runId = await store.getState().startSwarmRun('research', 'go')
    await settled(store, runId)
    expect(store.getState().runs[runId]).toMatchObject({
      status: 'failed',
      error: { code: 'SWARM_EVENTS_UNAVAILABLE' },
    })
    expect(store.getState().runs[runId]!.error!.message).toMatch(/ended before swarm-finish/)
  })

  it('stops reading when unsubscribed', async () => {
    let closed = false
    server = await startServer((request, response) => {
      request.on('close', () => (closed = true))
      streamEvents(response, runEvents.slice(0, 1), false)
    })
    const seen: SwarmRunEvent[] = []
    const runner = createHttpSwarmRunner({ baseUrl: server.baseUrl })
    const unsubscribe = runner.subscribe('run-7', (event) => seen.push(event))
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(1)
    unsubscribe()
    await expect.poll(() => closed, { timeout: 10_000 }).toBe(true)
    expect(seen.map((event) => event.type)).toEqual(['swarm-start'])
  })
})
