import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../__fixtures__/server-process'

// A server process of its own: its client is not in its event loop, as no real client is.
let server: ServerProcess
let base = ''
let dataDir = ''
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'baton-body-limit-'))
  server = await startServerProcess({
    BATON_DATA_DIR: dataDir,
    BATON_BODY_LIMIT: String(64 * 1024),
    BATON_RATE_LIMIT: '1000000',
  })
  base = server.url
}, 60_000)
afterAll(async () => {
  await server?.stop()
  await rm(dataDir, { recursive: true, force: true })
})

/** What a client that sends its whole body before reading gets: the answer, or how it failed. */
async function post(body: BodyInit, init: RequestInit = {}) {
  try {
    const response = await fetch(`${base}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      ...init,
    })
    return {
      status: response.status,
      code: ((await response.json()) as { error?: { code?: string } }).error?.code,
    }
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause
    return { status: 0, code: cause?.code ?? String(error) }
  }
}

describe('a body over BATON_BODY_LIMIT', () => {
  it('gets the 413 naming the limit, every time, not a reset connection, while the client is still sending it', async () => {
    // 4 MiB: far more than a socket's buffers take, so the client is still writing when the
    // answer comes.
    const big = JSON.stringify({
      plan: { steps: [] },
      inputs: { text: 'x'.repeat(4 * 1024 * 1024) },
    })
    const answers = []
    for (let index = 0; index < 20; index++) answers.push(await post(big))
    expect(answers).toEqual(answers.map(() => ({ status: 413, code: 'PAYLOAD_TOO_LARGE' })))
  })

  it('gets it too when sent in chunks, with no length given up front', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(256 * 1024))
    const answers = []
    for (let index = 0; index < 10; index++) {
      let sent = 0
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode('{"inputs":{"text":"'))
          if (sent >= 16) {
            controller.enqueue(new TextEncoder().encode('"}}'))
            controller.close()
            return
          }
          sent += 1
          controller.enqueue(chunk)
        },
      })
      answers.push(await post(stream, { duplex: 'half' } as RequestInit))
    }
    expect(answers).toEqual(answers.map(() => ({ status: 413, code: 'PAYLOAD_TOO_LARGE' })))
  })

  it('leaves the server answering: a body within the limit is taken right after', async () => {
    const small = await fetch(`${base}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ plan: { steps: [{ op: 'stop', output: 'ok' }] } }),
    })
    expect(small.status).toBe(202)
  })
})
