import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { readBody, sendJson, startServer, type TestServer } from '../__fixtures__/http-server'
import { createServerCommunicationStore } from './create-server-communication-store'
import { createServerSwarmRunner } from './create-server-swarm-runner'
import { requestJson } from './request-json'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

type Try = { url: string; key: string | undefined; body: unknown }

/**
 * A server that answers each try with `answer(tryNumber)`: a status and body, or `'drop'` to
 * read the request and close the connection without an answer (an answer lost on the way).
 */
async function serverAnswering(
  answer: (tryNumber: number, request: IncomingMessage) => [number, unknown] | 'drop',
) {
  const tries: Try[] = []
  server = await startServer(async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBody(request)
    const key = request.headers['idempotency-key']
    tries.push({ url: request.url ?? '', key: typeof key === 'string' ? key : undefined, body })
    const answered = answer(tries.length, request)
    if (answered === 'drop') {
      request.socket.destroy()
      return
    }
    sendJson(response, answered[0], answered[1])
  })
  return { baseUrl: server.baseUrl, tries }
}

const accepted = (id: string) => ({
  envelope: {
    id,
    from: { agentId: 'user' },
    to: { agentId: 'ops' },
    content: 'review the incidents',
    type: 'direct',
    correlationId: 'c1',
    hop: 0,
    createdAt: '2026-12-07T08:00:00.000Z',
  },
})
const send = { from: { agentId: 'user' }, to: { agentId: 'ops' }, content: 'review the incidents' }

describe('a request that creates something', () => {
  // Before, the store rejected at the lost answer: a person who sent again sent it twice.
  it('whose answer is lost is sent again with the same Idempotency-Key, and resolves once', async () => {
    const { baseUrl, tries } = await serverAnswering((n) =>
      n === 1 ? 'drop' : [202, accepted('m1')],
    )
    const comm = createServerCommunicationStore({ baseUrl, live: false })
    try {
      const sent = await comm.getState().send(send)
      expect(sent.id).toBe('m1')
      expect(tries).toHaveLength(2)
      expect(tries[0]).toEqual({ url: '/api/v1/messages', key: expect.any(String), body: send })
      expect(tries[1]).toEqual(tries[0])
      // The next message is another request: a key of its own.
      await comm.getState().send({ ...send, content: 'and the refunds' })
      expect(tries[2]?.key).toMatch(/^create_[0-9a-f-]{36}$/)
      expect(tries[2]?.key).not.toBe(tries[0]?.key)
      expect(comm.getState().correlations.get('c1')?.messages).toHaveLength(1)
    } finally {
      comm.getState().detach()
    }
  })

  it('is tried again while the server is restarting (502, 503, 504) or still answering its first try (409)', async () => {
    const refusals: [number, unknown][] = [
      [503, { error: { code: 'DATABASE_UNAVAILABLE', message: 'The database does not answer.' } }],
      [502, { error: 'Bad Gateway' }],
      [504, { error: 'Gateway Timeout' }],
      [409, { error: { code: 'IDEMPOTENCY_KEY_IN_USE', message: 'still being answered' } }],
    ]
    const { baseUrl, tries } = await serverAnswering((n) => refusals[n - 1] ?? [202, { id: 'r1' }])
    const runner = createServerSwarmRunner({ baseUrl })
    await expect(runner.start('research', 'compare Q1 and Q2')).resolves.toBe('r1')
    expect(tries.map((one) => one.url)).toEqual(Array(5).fill('/api/v1/swarms/research/runs'))
    expect(new Set(tries.map((one) => one.key)).size).toBe(1)
    expect(tries[0]?.key).toBeDefined()
  })

  it('is not tried again when the server refused it or failed at it (400, 409 of another kind, 500, 507)', async () => {
    for (const [status, code] of [
      [400, 'VALIDATION_FAILED'],
      [409, 'LOOP_GUARD_ESCALATED'],
      [500, 'INTERNAL'],
      [507, 'STORAGE_UNAVAILABLE'],
    ] as const) {
      const { baseUrl, tries } = await serverAnswering(() => [
        status,
        { error: { code, message: `refused with ${status}` } },
      ])
      await expect(
        requestJson({ baseUrl }, 'api/v1/messages', { body: send, once: true }),
      ).rejects.toMatchObject({ message: expect.stringContaining(String(status)) })
      expect(tries, `${status} ${code}`).toHaveLength(1)
      await server?.close()
    }
  })

  it('gives up after retryForMs, saying how often it tried; a read is tried once', async () => {
    const { baseUrl, tries } = await serverAnswering(() => [
      503,
      { error: { code: 'DATABASE_UNAVAILABLE', message: 'The database does not answer.' } },
    ])
    const started = Date.now()
    const error = await requestJson({ baseUrl, retryForMs: 1_000 }, 'api/v1/messages', {
      body: send,
      once: true,
    }).catch((caught: unknown) => caught)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(error).toMatchObject({
      code: 'SERVER_UNAVAILABLE',
      status: 503,
      message: expect.stringMatching(
        /answered 503 \(The database does not answer\.\); tried \d+ times in [\d.]+ s/,
      ),
    })
    expect(tries.length).toBeGreaterThan(1)
    expect(tries.length).toBe((error as { details: { tries: number } }).details.tries)

    const before = tries.length
    await expect(requestJson({ baseUrl }, 'api/v1/agents')).rejects.toMatchObject({ status: 503 })
    expect(tries.length - before).toBe(1)
    expect(tries.at(-1)?.key).toBeUndefined()
  })

  it('with retryForMs 0 is tried once; an aborted one stops waiting', async () => {
    const { baseUrl, tries } = await serverAnswering(() => 'drop')
    await expect(
      requestJson({ baseUrl, retryForMs: 0 }, 'api/v1/messages', { body: send, once: true }),
    ).rejects.toMatchObject({ code: 'SERVER_UNAVAILABLE', status: undefined })
    expect(tries).toHaveLength(1)

    const controller = new AbortController()
    setTimeout(() => controller.abort(), 300)
    const started = Date.now()
    await expect(
      requestJson({ baseUrl }, 'api/v1/messages', {
        body: send,
        once: true,
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ code: 'SERVER_UNAVAILABLE' })
    expect(Date.now() - started).toBeLessThan(3_000)
  })
})
