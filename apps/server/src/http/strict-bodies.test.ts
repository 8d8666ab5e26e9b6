import { createEnvelope } from '@baton/comm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ListeningTestApp, listenTestApp } from '../__fixtures__/listen-test-app'

const adminToken = 'strict-bodies-admin-token-0123'
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
