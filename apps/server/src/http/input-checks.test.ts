import { signAgentChange, signAgentRegistration } from '@baton/core'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends, databaseSettings } from '../__fixtures__/backends'
import { signedRegistration } from '../__fixtures__/signed-agents'
import { createTestApp } from '../__fixtures__/test-app'
import { seedDemo } from '../seed/seed-demo'
import { testRegistryId } from '../settings'

const nul = 'a\u0000b'
const plan = 'name: nul\nsteps:\n  - op: stop\n    output: done\n'

describe.each(backends)('bad input on %s', (backend) => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp(await databaseSettings(backend))
    await seedDemo(app.baton)
  })
  afterAll(async () => {
    await app.close()
  })

  /** Asserts a 400 whose issues name `path`; anything else (a 500 above all) fails. */
  async function expectRefused(request: InjectOptions, path: string) {
    const response = await app.inject(request)
    expect(response.statusCode, `${request.method} ${request.url}: ${response.body}`).toBe(400)
    const { error } = response.json()
    expect(error.code).toBe('VALIDATION_FAILED')
    expect(error.details.issues.map((issue: { path: string }) => issue.path)).toContain(path)
  }

  describe('a NUL character', () => {
    it('is refused in every text field of a body, naming the field', async () => {
      const { agent, creator, agentAccount } = await signedRegistration()
      const registration = await signAgentRegistration(
        { ...agent, name: nul },
        { creator, agentAccount, registry: testRegistryId },
      )
      await expectRefused(
        { method: 'POST', url: '/api/v1/agents', payload: registration },
        'body.agent.name',
      )
      const registered = await signedRegistration()
      expect(
        (await app.inject({ method: 'POST', url: '/api/v1/agents', payload: registered.body }))
          .statusCode,
      ).toBe(201)
      const change = await signAgentChange('update', registered.agent, {
        registry: testRegistryId,
        creator: registered.creator,
        changes: { description: nul },
      })
      await expectRefused(
        { method: 'PATCH', url: `/api/v1/agents/${registered.agent.wallet}`, payload: change },
        'body.changes.description',
      )
      await expectRefused(
        { method: 'POST', url: '/api/v1/runs', payload: { plan, inputs: { q: nul } } },
        'body.inputs.q',
      )
      await expectRefused(
        { method: 'POST', url: '/api/v1/runs', payload: { plan: `${plan}# ${nul}` } },
        'body.plan',
      )
      await expectRefused(
        {
          method: 'POST',
          url: '/api/v1/messages',
          payload: { from: { agentId: 'person' }, to: { agentId: 'analyst' }, content: nul },
        },
        'body.content',
      )
      await expectRefused(
        {
          method: 'POST',
          url: '/api/v1/swarms',
          payload: { id: 'nul-swarm', name: nul, agents: [{ agentId: 'analyst' }] },
        },
        'body.name',
      )
      await expectRefused(
        { method: 'POST', url: '/api/v1/runs/run_1/answer', payload: { answer: { [nul]: 1 } } },
        'body.answer',
      )
      await expectRefused(
        { method: 'POST', url: '/api/v1/escalations/esc_1/stop', payload: { reason: nul } },
        'body.reason',
      )
    })

    it('is refused in the path and the query, naming the parameter', async () => {
      await expectRefused({ method: 'GET', url: '/api/v1/agents?text=a%00b' }, 'querystring.text')
      await expectRefused({ method: 'GET', url: '/api/v1/agents/search?q=a%00b' }, 'querystring.q')
      await expectRefused({ method: 'GET', url: '/api/v1/runs/a%00b' }, 'params.id')
      await expectRefused({ method: 'GET', url: '/api/v1/plans/a%00b' }, 'params.id')
      await expectRefused(
        { method: 'GET', url: '/api/v1/conversations/a%00b' },
        'params.correlationId',
      )
      await expectRefused({ method: 'GET', url: '/api/v1/ledger?runId=a%00b' }, 'querystring.runId')
    })
  })

  // `?limit=2&limit=3` was refused as "expected number, received NaN"; `?status=a&status=b`
  // named an array no client meant to send.
  it('refuses a query parameter given more than once, naming it and how often', async () => {
    for (const url of [
      '/api/v1/agents?limit=2&limit=3',
      '/api/v1/runs?offset=0&limit=5&limit=5',
      '/api/v1/agents/search?q=a&q=b&q=c&limit=2',
    ]) {
      const response = await app.inject({ method: 'GET', url })
      expect(response.statusCode, `${url}: ${response.body}`).toBe(400)
      const { error } = response.json()
      expect(error.code).toBe('VALIDATION_FAILED')
      expect(error.details.issues[0]).toEqual({
        path: url.includes('search') ? 'querystring.q' : 'querystring.limit',
        message: `is given ${url.includes('search') ? 3 : 2} times; give it once`,
      })
    }
    expect((await app.inject({ method: 'GET', url: '/api/v1/agents?limit=2' })).statusCode).toBe(
      200,
    )
  })

  // `?limit=abc` was refused as "expected number, received NaN" (the text lost), `?limit=1.5`
  // as "expected int, received number", and `?offset=0x10` was read as offset 16.
  it('refuses a number in a query string that is not a whole decimal number, naming the text', async () => {
    for (const [url, field, text] of [
      ['/api/v1/runs?limit=abc', 'limit', 'abc'],
      ['/api/v1/agents?limit=1.5', 'limit', '1.5'],
      ['/api/v1/runs?offset=0x10', 'offset', '0x10'],
      ['/api/v1/agents/search?q=refunds&limit=1e1', 'limit', '1e1'],
      ['/api/v1/conversations?limit=', 'limit', ''],
    ] as const) {
      const response = await app.inject({ method: 'GET', url })
      expect(response.statusCode, `${url}: ${response.body}`).toBe(400)
      const { error } = response.json()
      expect(error.code).toBe('VALIDATION_FAILED')
      expect(error.details.issues).toEqual([
        {
          path: `querystring.${field}`,
          message: `expected a whole number, got ${JSON.stringify(text)}`,
        },
      ])
    }
    // A whole number is read, spaces around it too, and its bounds still hold.
    const page = await app.inject({ method: 'GET', url: '/api/v1/agents?limit=%202%20&offset=0' })
    expect(page.statusCode, page.body).toBe(200)
    expect(page.json().agents).toHaveLength(2)
    const tooMany = await app.inject({ method: 'GET', url: '/api/v1/agents?limit=201' })
    expect(tooMany.statusCode).toBe(400)
    expect(tooMany.json().error.details.issues[0].path).toBe('querystring.limit')
  })

  it('refuses inputs nested 5000 deep with 400 naming the field, and stores no run', async () => {
    // Written as text: a client's serializer need not survive the depth either.
    const inputs = `${'{"next":'.repeat(5000)}"deep"${'}'.repeat(5000)}`
    const before = (await app.inject({ method: 'GET', url: '/api/v1/runs' })).json().total
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      headers: { 'content-type': 'application/json' },
      payload: `{"plan":${JSON.stringify(plan)},"inputs":{"q":${inputs}}}`,
    })
    expect(response.statusCode, response.body).toBe(400)
    const { error } = response.json()
    expect(error.code).toBe('VALIDATION_FAILED')
    expect(error.details.issues[0].path).toMatch(/^body\.inputs\.q\.next\.next/)
    expect(error.details.issues[0].message).toMatch(/nested deeper than 64/)
    expect((await app.inject({ method: 'GET', url: '/api/v1/runs' })).json().total).toBe(before)
  })

  // A plan posted as the YAML it is written in, a form, or with no type at all: HTTP's 415,
  // naming the type received and the one read, not a 400 that says only "Bad Request".
  it('refuses a body in a media type it does not read with 415 naming it, and stores no run', async () => {
    const before = (await app.inject({ method: 'GET', url: '/api/v1/runs' })).json().total
    for (const contentType of [
      'application/yaml',
      'text/plain',
      'application/x-www-form-urlencoded',
    ]) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/runs',
        headers: { 'content-type': `${contentType}; charset=utf-8` },
        payload: plan,
      })
      expect(response.statusCode, response.body).toBe(415)
      expect(response.json().error).toEqual({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: `The request's body is sent as "${contentType}", which is not read here: send it as application/json.`,
        details: { field: 'content-type', received: contentType, accepted: ['application/json'] },
      })
    }
    const untyped = await app.inject({ method: 'POST', url: '/api/v1/runs', payload: plan })
    expect(untyped.statusCode, untyped.body).toBe(415)
    expect(untyped.json().error).toEqual({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'The request has a body but no Content-Type: send it as application/json.',
      details: { field: 'content-type', accepted: ['application/json'] },
    })
    expect((await app.inject({ method: 'GET', url: '/api/v1/runs' })).json().total).toBe(before)
  })

  // The router refuses these before any route or hook runs; fastify's own body for them had
  // `error: "Bad Request"`, a string where every other refusal has an object.
  it('refuses a path the router cannot read in the error shape of every other refusal', async () => {
    for (const url of ['/api/v1/runs/%E0%A4%A', '/a2a/%zz', '/agent/%E0%A4%A?x=1']) {
      const broken = await app.inject({ method: 'GET', url })
      expect(broken.statusCode, `${url}: ${broken.body}`).toBe(400)
      expect(broken.headers['x-request-id']).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/)
      expect(broken.json().error).toMatchObject({ code: 'BAD_REQUEST', details: { field: 'path' } })
      expect(broken.json().error.message).toMatch(/percent-escape in it is broken/)
    }
    const long = await app.inject({ method: 'GET', url: `/api/v1/agents/0x${'a'.repeat(99)}` })
    expect(long.statusCode, long.body).toBe(414)
    expect(long.json().error).toMatchObject({
      code: 'PATH_PARAMETER_TOO_LONG',
      details: { field: 'path', maxLength: 100 },
    })
    expect(long.json().error.message).toMatch(/longer than 100 characters/)
    // One of 100 characters is read by the route, which says what is wrong with it.
    const atLimit = await app.inject({ method: 'GET', url: `/api/v1/agents/0x${'a'.repeat(98)}` })
    expect(atLimit.statusCode, atLimit.body).toBe(400)
    expect(atLimit.json().error.code).toBe('MALFORMED_WALLET')
  })

  // A client whose wrapper sends `Content-Type: application/json` on every request, with a
  // body or not: fastify refused the empty one (400 "Body cannot be empty"), so a cancel
  // without a body could not be sent through it.
  it('reads an empty JSON body as none: a cancel goes through, a run without a plan is refused by name', async () => {
    const json = { 'content-type': 'application/json' }
    const started = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      headers: json,
      payload: {
        plan: { steps: [{ op: 'tool', toolName: 'wait', args: { ms: 10_000 }, saveAs: 'slept' }] },
      },
    })
    expect(started.statusCode, started.body).toBe(202)
    const { id } = started.json()
    const cancelled = await app.inject({
      method: 'POST',
      url: `/api/v1/runs/${id}/cancel`,
      headers: json,
      payload: '',
    })
    expect(cancelled.statusCode, cancelled.body).toBe(200)
    expect(cancelled.json().status, cancelled.body).toBe('cancelled')
    const before = (await app.inject({ method: 'GET', url: '/api/v1/runs' })).json().total
    const empty = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      headers: json,
      payload: '',
    })
    expect(empty.statusCode, empty.body).toBe(400)
    expect(empty.json().error.code).toBe('VALIDATION_FAILED')
    expect(empty.json().error.details.issues[0].path).toBe('body')
    expect((await app.inject({ method: 'GET', url: '/api/v1/runs' })).json().total).toBe(before)
  })

  // A client that joins paths with a slash too many: `/api/v1/agents/` was read as the agent
  // with an empty wallet (400 MALFORMED_WALLET), `/health/` as a page of the playground (200).
  it('reads a path with a trailing slash as the same route', async () => {
    const list = await app.inject({ method: 'GET', url: '/api/v1/agents' })
    const slashed = await app.inject({ method: 'GET', url: '/api/v1/agents/' })
    expect(slashed.statusCode, slashed.body).toBe(200)
    expect(slashed.json()).toEqual(list.json())
    const [agent] = list.json().agents
    const one = await app.inject({ method: 'GET', url: `/api/v1/agents/${agent.wallet}/` })
    expect(one.statusCode, one.body).toBe(200)
    expect(one.json().agent.wallet).toBe(agent.wallet)
    const health = await app.inject({ method: 'GET', url: '/health/' })
    expect(health.headers['content-type']).toMatch(/^application\/json/)
    expect(health.json()).toMatchObject({ status: 'ok' })
    const before = (await app.inject({ method: 'GET', url: '/api/v1/runs/' })).json().total
    const run = await app.inject({
      method: 'POST',
      url: '/api/v1/runs/',
      headers: { 'content-type': 'application/json' },
      payload: { plan },
    })
    expect(run.statusCode, run.body).toBe(202)
    expect((await app.inject({ method: 'GET', url: '/api/v1/runs' })).json().total).toBe(before + 1)
    // An empty id between two slashes is still an id the route refuses, by name.
    const empty = await app.inject({ method: 'GET', url: '/api/v1/runs//events' })
    expect(empty.statusCode, empty.body).toBe(400)
    expect(empty.json().error.details.issues[0].path).toBe('params.id')
  })

  // `PUT /api/v1/agents/<wallet>` answered 404 "route not found": read as "no such agent" by a
  // client, about an agent that is there.
  it('answers 405 with Allow to a method the route at a path does not answer, 404 where none is', async () => {
    const [agent] = (await app.inject({ method: 'GET', url: '/api/v1/agents' })).json().agents
    const put = await app.inject({
      method: 'PUT',
      url: `/api/v1/agents/${agent.wallet}`,
      headers: { 'content-type': 'application/json' },
      payload: agent,
    })
    expect(put.statusCode, put.body).toBe(405)
    expect(put.headers.allow).toBe('DELETE, GET, HEAD, PATCH')
    expect(put.json().error).toEqual({
      code: 'METHOD_NOT_ALLOWED',
      message: `/api/v1/agents/${agent.wallet} does not answer PUT; it answers DELETE, GET, HEAD, PATCH.`,
      details: { method: 'PUT', allowed: ['DELETE', 'GET', 'HEAD', 'PATCH'] },
    })
    const read = await app.inject({ method: 'GET', url: '/api/v1/runs/some-run/cancel/' })
    expect(read.statusCode, read.body).toBe(405)
    expect(read.headers.allow).toBe('POST')
    // Nothing at the path: still 404, naming the route.
    const none = await app.inject({ method: 'DELETE', url: '/api/v1/nothing-here' })
    expect(none.statusCode, none.body).toBe(404)
    expect(none.headers.allow).toBeUndefined()
    expect(none.json().error.code).toBe('NOT_FOUND')
    // The agent is still there.
    const after = await app.inject({ method: 'GET', url: `/api/v1/agents/${agent.wallet}` })
    expect(after.statusCode).toBe(200)
  })

  it('answers 409 to a change that gives an agent an id another agent has', async () => {
    const first = await signedRegistration()
    const second = await signedRegistration()
    for (const { body } of [first, second]) {
      const response = await app.inject({ method: 'POST', url: '/api/v1/agents', payload: body })
      expect(response.statusCode).toBe(201)
    }
    const change = await signAgentChange('update', second.agent, {
      registry: testRegistryId,
      creator: second.creator,
      changes: { id: first.agent.id },
    })
    const response = await app.inject({
      method: 'PATCH',
      url: `/api/v1/agents/${second.agent.wallet}`,
      payload: change,
    })
    expect(response.statusCode, response.body).toBe(409)
    expect(response.json().error).toMatchObject({
      code: 'CONFLICT',
      details: { id: first.agent.id },
    })
    const read = await app.inject({ method: 'GET', url: `/agent/${second.agent.wallet}` })
    expect(read.json().id).toBe(second.agent.id)
  })
})
