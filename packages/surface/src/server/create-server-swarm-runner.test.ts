import { afterEach, describe, expect, it } from 'vitest'
import { readBody, sendJson, startServer, type TestServer } from '../__fixtures__/http-server'
import type { SwarmRunEvent } from '../swarm-runner/types'
import { createServerSwarmRunner } from './create-server-swarm-runner'
import { requestJson } from './request-json'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const result = {
  status: 'done',
  output: 'pick plan B',
  usage: { calls: 3, tokens: 30, costUsd: 0 },
}

describe('createServerSwarmRunner', () => {
  it('starts a run with { input } and streams its swarm events up to swarm-finish', async () => {
    const bodies: unknown[] = []
    server = await startServer(async (request, response) => {
      if (request.method === 'POST') {
        bodies.push(await readBody(request))
        return sendJson(response, 202, { run: { id: 'run_1' }, runId: 'run_1' })
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      const events = [
        { type: 'swarm-start', swarmId: 'council', strategy: 'democratic', task: 'pick' },
        { type: 'step-start', path: 'steps[0]' },
        {
          type: 'swarm-message',
          round: 1,
          kind: 'vote',
          agentId: 'analyst',
          content: '0',
          weight: 1,
        },
        { type: 'swarm-finish', result },
      ]
      events.forEach((event, index) => {
        response.write(
          `id: ${index}\nevent: ${event.type}\ndata: ${JSON.stringify({ runId: 'run_1', ...event })}\n\n`,
        )
      })
    })
    const runner = createServerSwarmRunner({ baseUrl: server.baseUrl })
    const runId = await runner.start('council', 'pick')
    expect(runId).toBe('run_1')
    expect(bodies).toEqual([{ input: 'pick' }])
    const received: SwarmRunEvent[] = []
    await new Promise<void>((resolve) => {
      runner.subscribe(runId, (event) => {
        received.push(event)
        if (event.type === 'swarm-finish') resolve()
      })
    })
    expect(received.map((event) => event.type)).toEqual([
      'swarm-start',
      'swarm-message',
      'swarm-finish',
    ])
    expect(received[1]).toMatchObject({ kind: 'vote', weight: 1, runId: 'run_1' })
    expect(server.requests).toEqual([
      'POST /api/v1/swarms/council/runs',
      'GET /api/v1/runs/run_1/events',
    ])
  })

  it("rejects with the server's code and message when it refuses to start", async () => {
    server = await startServer((_request, response) =>
      sendJson(response, 404, {
        error: { code: 'NOT_FOUND', message: 'No swarm "nope".', details: { id: 'nope' } },
      }),
    )
    const runner = createServerSwarmRunner({ baseUrl: server.baseUrl })
    await expect(runner.start('nope', 'x')).rejects.toMatchObject({
      name: 'ServerRefusedError',
      code: 'NOT_FOUND',
      message: 'No swarm "nope".',
      status: 404,
      details: { id: 'nope', status: 404 },
    })
  })
})

describe('requestJson', () => {
  it('keeps every issue of a refusal, so a form can show them', async () => {
    const issues = [{ path: 'steps[1].op', line: 6, column: 9, message: 'unknown op' }]
    server = await startServer((_request, response) =>
      sendJson(response, 400, {
        error: { code: 'PLAN_INVALID', message: 'The plan has 1 problem.', details: { issues } },
      }),
    )
    await expect(
      requestJson({ baseUrl: server.baseUrl }, 'api/v1/runs', { body: {} }),
    ).rejects.toMatchObject({
      code: 'PLAN_INVALID',
      details: { issues },
    })
  })

  it('calls a 5xx the server being unavailable, not a refusal', async () => {
    server = await startServer((_request, response) =>
      sendJson(response, 503, {
        error: { code: 'NOT_READY', message: 'The database does not answer.' },
      }),
    )
    await expect(requestJson({ baseUrl: server.baseUrl }, 'api/v1/agents')).rejects.toMatchObject({
      code: 'SERVER_UNAVAILABLE',
      message: expect.stringMatching(/answered 503 \(The database does not answer\.\)/),
    })
  })
})
