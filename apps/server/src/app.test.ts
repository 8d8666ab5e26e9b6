import { Writable } from 'node:stream'
import { signAgentRegistration } from '@baton/core'
import { parsePlan } from '@baton/mal'
import { validate } from '@readme/openapi-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newAgentAccounts } from './__fixtures__/signed-agents'
import { pgliteTemplate } from './__fixtures__/test-app'
import { buildApp } from './app'
import { seedDemo } from './seed/seed-demo'
import { testRegistryId, testSettings } from './settings'

const token = 'secret-token-0123456789'
const lines: string[] = []
const sink = new Writable({
  write(chunk, _encoding, callback) {
    lines.push(String(chunk))
    callback()
  },
})

let app: Awaited<ReturnType<typeof buildApp>>
beforeAll(async () => {
  app = await buildApp({
    settings: testSettings({ apiToken: token, logLevel: 'info' }),
    logger: { stream: sink },
    pgliteTemplate: await pgliteTemplate(),
  })
  await app.ready()
})
afterAll(async () => {
  await app.close()
})

describe('seedDemo', () => {
  it('seeds the demo once: a second seeding changes nothing', async () => {
    const first = await seedDemo(app.baton)
    expect(first).toMatchObject({ created: true, swarm: 'dev-team' })
    expect(first.agents).toEqual(['orchestrator', 'analyst', 'reviewer', 'tester'])
    const second = await seedDemo(app.baton)
    expect(second.created).toBe(false)
    const agents = await app.inject({ method: 'GET', url: '/api/v1/agents' })
    expect(agents.json().total).toBe(4)
    const orchestrator = await app.baton.repositories.agents.findById('orchestrator')
    expect(orchestrator?.agentCard.canDelegate).toBe(true)
    // A token is set: reads other than the agent directory need it (private by default).
    const admin = { authorization: `Bearer ${token}` }
    const plans = (await app.inject({ method: 'GET', url: '/api/v1/plans', headers: admin })).json()
      .plans
    for (const plan of plans) expect(() => parsePlan(plan.source)).not.toThrow()
  })
})

describe('buildApp', () => {
  it('serves an OpenAPI document generated from the route schemas', async () => {
    const headers = { authorization: `Bearer ${token}` }
    const response = await app.inject({ method: 'GET', url: '/docs/json', headers })
    expect(response.statusCode).toBe(200)
    const document = response.json()
    expect(document.openapi).toMatch(/^3\./)
    for (const path of [
      '/agent/{wallet}',
      '/api/v1/agents',
      '/api/v1/runs',
      '/api/v1/runs/{id}/events',
      '/api/v1/runs/{id}/files/{*}',
      '/api/v1/swarms/{id}/runs',
      '/api/v1/messages',
      '/api/v1/escalations/{id}/allow',
      '/api/v1/spend',
    ]) {
      expect(document.paths).toHaveProperty([path])
    }
    expect(document.paths['/api/v1/agents'].post.requestBody).toBeDefined()
    // Every operation says what its refusals carry: the one error shape.
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, { responses: Record<string, unknown> }>).map(
        ([method, operation]) => ({ at: `${method.toUpperCase()} ${path}`, operation }),
      ),
    )
    expect(operations.length).toBeGreaterThan(40)
    for (const { at, operation } of operations) {
      // A2A's endpoint refuses with the JSON-RPC errors of its binding.
      if (at === 'POST /a2a/{agentId}') {
        expect(operation.responses.default, at).toBeUndefined()
        continue
      }
      const refusal = operation.responses.default as {
        content: Record<string, { schema: { properties: { error: { required: string[] } } } }>
      }
      expect(refusal, at).toBeDefined()
      expect(refusal.content['application/json']!.schema.properties.error.required, at).toEqual([
        'code',
        'message',
        'details',
      ])
    }
    const ui = await app.inject({ method: 'GET', url: '/docs', headers })
    expect([200, 302]).toContain(ui.statusCode)
  })

  it('lists the Idempotency-Key header on exactly the operations that honour it', async () => {
    const headers = { authorization: `Bearer ${token}` }
    const document = (await app.inject({ method: 'GET', url: '/docs/json', headers })).json()
    type Parameter = { in: string; name: string; required?: boolean; schema: { pattern?: string } }
    const keyed = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods as Record<string, { parameters?: Parameter[] }>).flatMap(
        ([method, operation]) =>
          (operation.parameters ?? [])
            .filter(
              (parameter) => parameter.in === 'header' && parameter.name === 'idempotency-key',
            )
            .map((parameter) => ({ at: `${method.toUpperCase()} ${path}`, parameter })),
      ),
    )
    // Every change a person makes in the playground: a retry after a lost answer is answered
    // as the first try was. (`POST /api/v1/keys` says why it has none.)
    expect(keyed.map(({ at }) => at).sort()).toEqual([
      'DELETE /api/v1/agents/{wallet}',
      'DELETE /api/v1/swarms/{id}',
      'PATCH /api/v1/agents/{wallet}',
      'PATCH /api/v1/swarms/{id}',
      'POST /api/v1/agents',
      'POST /api/v1/escalations/{id}/allow',
      'POST /api/v1/escalations/{id}/stop',
      'POST /api/v1/messages',
      'POST /api/v1/runs',
      'POST /api/v1/runs/{id}/answer',
      'POST /api/v1/runs/{id}/cancel',
      'POST /api/v1/runs/{id}/resume',
      'POST /api/v1/swarms',
      'POST /api/v1/swarms/{id}/runs',
    ])
    for (const { parameter } of keyed) {
      expect(parameter.required).not.toBe(true)
      const pattern = new RegExp(parameter.schema.pattern ?? '')
      expect(pattern.test('order-123')).toBe(true)
      expect(pattern.test('with space')).toBe(false)
    }
  })

  it('declares what every operation answers, so a client made from the document is typed', async () => {
    const headers = { authorization: `Bearer ${token}` }
    const document = (await app.inject({ method: 'GET', url: '/docs/json', headers })).json()
    type Answer = { content?: Record<string, { schema: Record<string, unknown> }> }
    const schemas = document.components.schemas as Record<string, unknown>
    const missing: string[] = []
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(
        methods as Record<string, { responses: Record<string, Answer> }>,
      )) {
        const at = `${method.toUpperCase()} ${path}`
        // A2A's JSON-RPC endpoint answers as its binding says.
        if (at === 'POST /a2a/{agentId}') continue
        const success = Object.entries(operation.responses).filter(([status]) => /^2/.test(status))
        // A schema of its own: a type or a named component, not the bare description that
        // stands in for a route that declares no answer.
        const typed = success.filter(([, answer]) =>
          Object.values(answer.content ?? {}).some(({ schema }) =>
            ['type', '$ref', 'anyOf', 'oneOf', 'allOf'].some((key) => key in schema),
          ),
        )
        if (typed.length === 0) missing.push(at)
      }
    }
    expect(missing).toEqual([])
    // The entities are named once, and every name used is in the document.
    for (const name of ['Agent', 'AgentCard', 'Run', 'RunSummary', 'Swarm', 'Envelope']) {
      expect(schemas, name).toHaveProperty([name])
    }
    const text = JSON.stringify(document)
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      expect(schemas, name).toHaveProperty([name!])
    }
    // A variant as read that no operation reads is not listed.
    expect(Object.keys(schemas).filter((name) => name.endsWith('Input'))).toEqual([])
    // The streams, a run's files and the metrics name their media types.
    const mediaTypes = (path: string) =>
      Object.keys((document.paths[path].get.responses['200'] as Answer).content ?? {})
    expect(mediaTypes('/api/v1/runs/{id}/events')).toEqual(['text/event-stream'])
    expect(mediaTypes('/api/v1/messages/stream')).toEqual(['text/event-stream'])
    expect(mediaTypes('/api/v1/runs/{id}/files/{*}')).toEqual(['*/*'])
    expect(mediaTypes('/metrics')).toEqual(['text/plain'])
    // And it is a valid OpenAPI document: what a generator reads before it makes anything.
    const checked = await validate(structuredClone(document))
    expect(checked.valid ? [] : checked.errors).toEqual([])
    expect(checked.warnings).toEqual([])
  })

  it('logs one JSON line per request with the token and signatures redacted', async () => {
    const accounts = newAgentAccounts()
    const body = await signAgentRegistration(accounts.agent, {
      ...accounts,
      registry: testRegistryId,
    })
    await app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: body,
      headers: { authorization: `Bearer ${token}` },
    })
    const text = lines.join('')
    expect(text).not.toContain(token)
    expect(text).not.toContain(body.creatorSignature)
    const entries = lines.map((line) => JSON.parse(line) as { msg?: string; reqId?: string })
    expect(entries.some((entry) => entry.msg === 'request completed')).toBe(true)
  })

  it('censors every redacted path in what a line logs: under a request, under any key, each line alike', async () => {
    const secrets = {
      req: {
        method: 'POST',
        headers: {
          authorization: 'Bearer header-secret',
          cookie: 'session=cookie-secret',
          'x-api-key': 'api-key-secret',
          accept: 'application/json',
        },
        body: {
          creatorSignature: '0xcreator-secret',
          agentSignature: '0xagent-secret',
          signature: '0xenvelope-secret',
          content: 'hello',
        },
      },
      provider: { name: 'openai', apiKey: 'provider-secret', token: 'token-secret' },
      env: { OPENAI_API_KEY: 'sk-openai-secret', ANTHROPIC_API_KEY: 'sk-ant-secret' },
    }
    // Twice: the second line censored as the first (the paths are parsed once, not per line).
    for (const round of [1, 2]) app.log.info(secrets, `redaction probe ${round}`)
    const probes = lines
      .map((line) => JSON.parse(line) as Record<string, unknown> & { msg?: string })
      .filter((entry) => entry.msg?.startsWith('redaction probe'))
    expect(probes).toHaveLength(2)
    for (const probe of probes) {
      expect(JSON.stringify(probe)).not.toMatch(/secret/)
      // A request is logged through fastify's serializer (its method, url, host), never its
      // headers or body; the redacted paths under `req` are there should that change.
      expect(probe).toMatchObject({
        req: { method: 'POST' },
        provider: { name: 'openai', apiKey: '[redacted]', token: '[redacted]' },
        env: { OPENAI_API_KEY: '[redacted]', ANTHROPIC_API_KEY: '[redacted]' },
      })
    }
    // What was logged is left as it was: only the line is censored.
    expect(secrets.req.headers.authorization).toBe('Bearer header-secret')
  })

  // An operator given a failed request's answer finds its log lines by the id it carries.
  it('answers every request with the id its log lines carry, keeping a proxy’s plain one', async () => {
    const read = async (given?: string) => {
      const response = await app.inject({
        method: 'GET',
        url: '/api/v1/agents',
        headers: given === undefined ? {} : { 'x-request-id': given },
      })
      const id = String(response.headers['x-request-id'])
      const logged = lines
        .map((line) => JSON.parse(line) as { msg?: string; reqId?: string; req?: { url?: string } })
        .filter((entry) => entry.reqId === id)
      return { id, logged }
    }
    const own = await read()
    expect(own.id).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/)
    expect(own.logged.map((entry) => entry.msg)).toEqual(['incoming request', 'request completed'])
    expect((await read()).id).not.toBe(own.id)
    expect((await read('lb-7f3a.2:9')).id).toBe('lb-7f3a.2:9')
    // Not a plain token of at most 128 characters: replaced, never written into the log.
    for (const unsafe of ['two words', 'x'.repeat(129), 'a"b', '']) {
      const replaced = await read(unsafe)
      expect(replaced.id).not.toBe(unsafe)
      expect(replaced.id).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/)
    }
  })
})
