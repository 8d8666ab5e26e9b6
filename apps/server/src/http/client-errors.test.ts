import { once } from 'node:events'
import { connect, createServer, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ListeningTestApp, listenTestApp } from '../__fixtures__/listen-test-app'
import { openRawConnection } from '../__fixtures__/raw-http'
import { answerClientError } from './error-handler'

// What Node's HTTP parser refuses never reaches a route: fastify's own answer to it was
// `{"error":"Bad Request","message":"Client Error"}`, another shape than every other refusal,
// and naming nothing.
describe('a request that is not HTTP the server can read', () => {
  let served: ListeningTestApp
  beforeAll(async () => {
    served = await listenTestApp({ seed: false })
  })
  afterAll(() => served.close())

  /** Writes `text` on a connection of its own: the answer, and how the connection ended. */
  async function answerTo(text: string) {
    const connection = await openRawConnection(served.base)
    connection.write(text)
    const response = await connection.next({ timeoutMs: 5_000 })
    const ended = await connection.closed
    // Nothing more came before the close: no second answer to anything written after it.
    const more = await connection.next({ timeoutMs: 1_000 }).then(
      (next) => `${next.status} ${next.body}`,
      () => undefined,
    )
    return { ...response, error: JSON.parse(response.body).error, ended, more }
  }

  it('is answered 400 in the error shape of every route, naming what the parser refused', async () => {
    const answer = await answerTo('GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n')
    expect(answer.status).toBe(400)
    expect(answer.headers['content-type']).toMatch(/^application\/json/)
    expect(answer.error).toEqual({
      code: 'BAD_REQUEST',
      message: 'The request is not valid HTTP/1.1: Invalid header token.',
      details: { parserCode: 'HPE_INVALID_HEADER_TOKEN' },
    })
    expect(answer.ended).toBe('end')
  })

  it('refuses headers past the limit with 431, naming the limit', async () => {
    const answer = await answerTo(
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    )
    expect(answer.status).toBe(431)
    expect(answer.error).toMatchObject({
      code: 'HEADERS_TOO_LARGE',
      details: { field: 'headers', maxBytes: 16_384 },
    })
    expect(answer.error.message).toContain('larger than the 16384 bytes')
  })

  // A request with both lengths is how one request is smuggled inside another past a proxy:
  // it is refused, and what follows it on the connection is never served.
  it('refuses a body with two lengths and serves nothing written after it', async () => {
    const smuggled = 'GET /api/v1/runs HTTP/1.1\r\nHost: x\r\n\r\n'
    const answer = await answerTo(
      `POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: ${smuggled.length + 5}\r\n\r\n0\r\n\r\n${smuggled}`,
    )
    expect(answer.status).toBe(400)
    expect(answer.error.code).toBe('BAD_REQUEST')
    expect(answer.error.message).toContain("Content-Length can't be present with Transfer-Encoding")
    expect(answer.ended).toBe('end')
    expect(answer.more).toBeUndefined()
  })
})

describe('answerClientError', () => {
  let server: ReturnType<typeof createServer>
  let accepted: Promise<Socket>
  beforeAll(async () => {
    server = createServer()
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  /** What a client reads when the server side of its connection is answered `error`. */
  async function clientReads(
    error: NodeJS.ErrnoException,
  ): Promise<{ text: string; closedByHandler: boolean }> {
    accepted = once(server, 'connection').then(([socket]) => socket as Socket)
    const address = server.address() as { port: number }
    const client = connect(address.port, '127.0.0.1')
    let text = ''
    client.on('data', (chunk) => {
      text += chunk
    })
    const socket = await accepted
    answerClientError(error, socket)
    const closedByHandler = socket.destroyed
    // A reset connection is left as it is; here the test closes it, after the handler ran.
    if (!closedByHandler) socket.destroy()
    await once(client, 'close')
    return { text, closedByHandler }
  }

  it('answers a request that took too long with 408, and closes its connection', async () => {
    const { text, closedByHandler } = await clientReads(
      Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
    )
    expect(closedByHandler).toBe(true)
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
    expect(text).toContain('Connection: close')
    expect(JSON.parse(text.split('\r\n\r\n')[1] ?? '').error.code).toBe('REQUEST_TIMEOUT')
  })

  it('writes nothing to a connection the client reset', async () => {
    const { text, closedByHandler } = await clientReads(
      Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
    )
    expect(text).toBe('')
    expect(closedByHandler).toBe(false)
  })
})
