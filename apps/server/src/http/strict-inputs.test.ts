import { createEnvelope } from '@baton/comm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ListeningTestApp, listenTestApp } from '../__fixtures__/listen-test-app'

const adminToken = 'strict-inputs-admin-token-0123'
let served: ListeningTestApp

beforeAll(async () => {
  served = await listenTestApp({ settings: { apiToken: adminToken } })
})
afterAll(() => served.close())

/** One request over real HTTP, as the admin. */
async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${served.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  // biome-ignore lint/suspicious/noExplicitAny: the test reads the answer's fields as JSON
  return { status: response.status, body: (await response.json()) as any }
}

describe('every request body is strict, at every depth', () => {
  it('refuses a key a body does not declare with 400 naming it, beside the schema own issues, and does nothing', async () => {
    // Dropped, the key would be made without the limit its caller meant it to have.
    const made = await call('POST', '/api/v1/keys', {
      name: 'ci-bot',
      scopes: ['read'],
      expiresAt: '2026-12-31T00:00:00Z',
    })
    expect(made.status).toBe(400)
    expect(made.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'Invalid request: body: Unrecognized key: "expiresAt"',
    })
    const keys = await call('GET', '/api/v1/keys')
    expect(keys.body.keys.map((key: { name: string }) => key.name)).not.toContain('ci-bot')

    // A key named like an inherited member of an object is unknown like any other (not a 500).
    const inherited = await call('POST', '/api/v1/keys', {
      name: 'ci-bot',
      scopes: ['read'],
      constructor: {},
      toString: 1,
    })
    expect(inherited.status).toBe(400)
    expect(inherited.body.error.message).toBe(
      'Invalid request: body: Unrecognized key: "constructor"; body: Unrecognized key: "toString"',
    )

    // With the schema's own issue, both are named in one answer.
    const both = await call('POST', '/api/v1/keys', { name: 'ci-bot', scope: ['read'] })
    expect(both.status).toBe(400)
    expect(both.body.error.details.issues).toEqual([
      { path: 'body.scopes', message: expect.any(String) },
      { path: 'body', message: 'Unrecognized key: "scope"' },
    ])
  })

  it('names a key deep in a body by where it is, before anything is looked up', async () => {
    // A misspelt `question` would answer whatever the run asks now, not the question meant.
    const answer = await call('POST', '/api/v1/runs/no-such-run/answer', {
      answer: 'yes',
      questoin: 'Deploy now?',
    })
    expect(answer.status).toBe(400)
    expect(answer.body.error.message).toBe('Invalid request: body: Unrecognized key: "questoin"')
    const started = await call('POST', '/api/v1/runs', {
      plan: { steps: [{ op: 'stop', output: 'ok' }] },
      budget: { calls: 1, costUSD: 0.01 },
    })
    expect(started.status).toBe(400)
    // Told once, though the budget's own schema is strict too.
    expect(started.body.error.details.issues).toEqual([
      { path: 'body.budget', message: 'Unrecognized key: "costUSD"' },
    ])
  })

  it('keeps a body marked lenient as zod reads it: a complete envelope with a newer sender field is taken', async () => {
    const envelope = createEnvelope({
      from: { agentId: 'newer-desk' },
      to: { agentId: 'analyst' },
      content: 'from a newer sender',
      type: 'broadcast',
    })
    const sent = await call('POST', '/api/v1/messages', { ...envelope, priority: 'high' })
    expect(sent.status).toBe(202)
    expect(sent.body.envelope.id).toBe(envelope.id)
  })
})

describe('a declared query string is strict too', () => {
  it('refuses a misspelt filter with 400 naming it, where it would have listed everything', async () => {
    // Dropped, `stauts` would list every run, not the failed ones the caller asked for.
    const runs = await call('GET', '/api/v1/runs?stauts=failed')
    expect(runs.status).toBe(400)
    expect(runs.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'Invalid request: querystring: Unrecognized key: "stauts"',
      details: { issues: [{ path: 'querystring', message: 'Unrecognized key: "stauts"' }] },
    })
    // Beside the schema's own issues, each named once.
    const agents = await call('GET', '/api/v1/agents?limit=0&trust_tier=high')
    expect(agents.status).toBe(400)
    expect(agents.body.error.details.issues).toEqual([
      { path: 'querystring.limit', message: expect.any(String) },
      { path: 'querystring', message: 'Unrecognized key: "trust_tier"' },
    ])
    const search = await call('GET', '/api/v1/agents/search?query=sql')
    expect(search.status).toBe(400)
    expect(search.body.error.details.issues).toContainEqual({
      path: 'querystring',
      message: 'Unrecognized key: "query"',
    })
  })

  it('answers the keys it declares as before, and a route that declares none takes any', async () => {
    const failed = await call('GET', '/api/v1/runs?status=failed&limit=5')
    expect(failed.status).toBe(200)
    expect(Array.isArray(failed.body.runs)).toBe(true)
    const spend = await call('GET', '/api/v1/spend?by=run')
    expect(spend.status).toBe(200)
    // A cache-buster on a route with no query of its own is no request for anything else.
    const runtime = await call('GET', '/api/v1/runtime?v=2')
    expect(runtime.status).toBe(200)
  })
})
