import { request as httpRequest } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenTestApp } from '../__fixtures__/listen-test-app'
import { readSettings, type Settings } from '../settings'

const sendMessage = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'spend for me' }] } },
})

/** One real HTTP request, with any headers (`Host` and `Origin` included), read as JSON. */
function send(
  base: string,
  options: { method: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(options.path, base)
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: options.method,
        headers: {
          ...(options.body === undefined
            ? {}
            : { 'content-length': Buffer.byteLength(options.body) }),
          ...options.headers,
        },
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          text += chunk
        })
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : {} }),
        )
      },
    )
    outgoing.on('error', reject)
    outgoing.end(options.body)
  })
}

async function serve(overrides: Partial<Settings> = {}) {
  const { app, base } = await listenTestApp({ settings: overrides })
  return { app, base, port: new URL(base).port }
}

/** The A2A tasks the analyst has, as a client without an Origin sees them. */
async function analystTasks(base: string): Promise<unknown[]> {
  const listed = await send(base, {
    method: 'POST',
    path: '/a2a/analyst',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ListTasks', params: {} }),
  })
  return (listed.body.result as { tasks: unknown[] }).tasks
}

describe('requests from other origins and hosts', () => {
  let app: FastifyInstance
  let base = ''
  let port = ''
  beforeAll(async () => {
    ;({ app, base, port } = await serve({ corsOrigins: ['https://friend.example'] }))
  })
  afterAll(async () => {
    await app.close()
  })

  it('refuses a no-cors POST from a foreign page (text/plain Blob, no JSON type) to an agent, and runs nothing', async () => {
    // What `fetch('/a2a/analyst', { method: 'POST', mode: 'no-cors', body: new Blob([rpc]) })` sends.
    const noType = await fetch(`${base}/a2a/analyst`, {
      method: 'POST',
      headers: { origin: 'https://attacker.example' },
      body: new Blob([sendMessage]),
    })
    expect(noType.status).toBe(403)
    expect((await noType.json()).error).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' })
    const textPlain = await send(base, {
      method: 'POST',
      path: '/a2a/analyst',
      headers: { origin: 'https://attacker.example', 'content-type': 'text/plain' },
      body: sendMessage,
    })
    expect(textPlain.status).toBe(403)
    expect(await analystTasks(base)).toEqual([])
  })

  it('refuses a JSON-RPC POST without application/json with 415, whoever sends it', async () => {
    const noType = await fetch(`${base}/a2a/analyst`, {
      method: 'POST',
      body: new Blob([sendMessage]),
    })
    expect(noType.headers.get('content-type')).toMatch(/application\/json/)
    expect(noType.status).toBe(415)
    expect(await noType.json()).toMatchObject({ id: null, error: { code: -32005 } })
    const textPlain = await send(base, {
      method: 'POST',
      path: '/a2a/analyst',
      headers: { 'content-type': 'text/plain;charset=UTF-8', 'a2a-version': '1.0' },
      body: sendMessage,
    })
    expect(textPlain).toMatchObject({ status: 415, body: { error: { code: -32005 } } })
    expect(await analystTasks(base)).toEqual([])
  })

  it('refuses a change to any route from a foreign Origin with 403, before its route runs', async () => {
    const plan = JSON.stringify({ plan: { steps: [{ op: 'stop', output: 'ok' }] } })
    const headers = { 'content-type': 'application/json' }
    for (const origin of [
      'https://attacker.example',
      'null',
      `http://127.0.0.1.attacker.example:${port}`,
    ]) {
      const refused = await send(base, {
        method: 'POST',
        path: '/api/v1/runs',
        headers: { ...headers, origin },
        body: plan,
      })
      expect(refused.status, origin).toBe(403)
      expect(refused.body.error).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED', details: { origin } })
    }
    const runs = await send(base, { method: 'GET', path: '/api/v1/runs' })
    expect(runs.body.total).toBe(0)
    const deleted = await send(base, {
      method: 'DELETE',
      path: '/api/v1/agents/0x52908400098527886E0F7030069857D2E4169EE7',
      headers: { ...headers, origin: 'https://attacker.example' },
      body: '{}',
    })
    expect(deleted.status).toBe(403)
  })

  it('accepts changes from its own pages, from allowed origins and from clients that send no Origin', async () => {
    const plan = JSON.stringify({ plan: { steps: [{ op: 'stop', output: 'ok' }] } })
    for (const origin of [
      `http://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      'https://friend.example',
      undefined,
    ]) {
      const accepted = await send(base, {
        method: 'POST',
        path: '/api/v1/runs',
        headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
        body: plan,
      })
      expect(accepted.status, String(origin)).toBe(202)
    }
    // Reads are not refused (CORS decides what a foreign page may read).
    const read = await send(base, {
      method: 'GET',
      path: '/api/v1/agents',
      headers: { origin: 'https://attacker.example' },
    })
    expect(read.status).toBe(200)
  })

  it('never takes a card’s endpoint from the Host header', async () => {
    for (const path of [
      '/a2a/analyst/.well-known/agent-card.json',
      '/.well-known/agent-card.json',
    ]) {
      const card = await send(base, { method: 'GET', path, headers: { host: 'attacker.example' } })
      expect(card.status).toBe(200)
      const urls = (card.body.supportedInterfaces as { url: string }[]).map(({ url }) => url)
      expect(urls.length).toBeGreaterThan(0)
      for (const url of urls) expect(new URL(url).origin).toBe(`http://127.0.0.1:${port}`)
    }
  })
})

describe('BATON_PUBLIC_URL', () => {
  let app: FastifyInstance
  let base = ''
  let port = ''
  beforeAll(async () => {
    ;({ app, base, port } = await serve({ publicUrl: 'https://baton.example.com' }))
  })
  afterAll(async () => {
    await app.close()
  })

  it('is read from the environment without its trailing slash, and only as an http(s) URL', () => {
    expect(readSettings({ BATON_PUBLIC_URL: 'https://baton.example.com/' }).publicUrl).toBe(
      'https://baton.example.com',
    )
    expect(() => readSettings({ BATON_PUBLIC_URL: 'javascript:alert(1)' })).toThrow(
      /BATON_PUBLIC_URL/,
    )
  })

  it('is the base of every card’s endpoint, whatever the Host', async () => {
    const card = await send(base, {
      method: 'GET',
      path: '/a2a/analyst/.well-known/agent-card.json',
      headers: { host: 'attacker.example' },
    })
    expect((card.body.supportedInterfaces as { url: string }[])[0]?.url).toBe(
      'https://baton.example.com/a2a/analyst',
    )
  })

  it('is the one own origin: its pages may change state, the listening address’s may not', async () => {
    const plan = JSON.stringify({ plan: { steps: [{ op: 'stop', output: 'ok' }] } })
    const post = (origin: string) =>
      send(base, {
        method: 'POST',
        path: '/api/v1/runs',
        headers: { 'content-type': 'application/json', origin },
        body: plan,
      })
    expect((await post('https://baton.example.com')).status).toBe(202)
    expect((await post(`http://127.0.0.1:${port}`)).status).toBe(403)
  })
})
