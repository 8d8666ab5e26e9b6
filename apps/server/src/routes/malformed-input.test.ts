import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'
import { seedDemo } from '../seed/seed-demo'

const token = 't'.repeat(32)
const authorized = { authorization: `Bearer ${token}` }

// What a careless or hostile client sends where an id goes: empty-looking, negative, a NUL,
// a path climbing out, thousands of characters, a broken escape, a number past a double.
const ODD_PARAMS = ['x', '0', '-1', '%00', '..%2F..', 'a'.repeat(3000), '%E0%A4%A', '1e309']

const ODD_QUERIES = [
  '',
  '?limit=-1',
  '?limit=abc',
  '?limit=1e309',
  '?limit[]=1',
  '?cursor=%00',
  `?cursor=${'z'.repeat(2000)}`,
  '?status=bogus',
  '?offset=99999999999999999999',
  '?since=-1',
]

// Bodies as sent on the wire: not JSON, JSON of the wrong kind, wrong types where the routes
// want strings and objects, prototype keys, nesting thousands deep, lone surrogates, and
// JSON-RPC envelopes broken in each part A2A reads.
const ODD_BODIES: string[] = [
  '{',
  '{"a":',
  '[]',
  '"x"',
  '1',
  'null',
  '{}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"plan":1}',
  '{"plan":{"name":1}}',
  '{"plan":{"steps":"x"}}',
  '{"plan":{"name":"x","steps":[{}]}}',
  '{"plan":{"name":"x","steps":[{"op":"delegate"}]}}',
  `{"plan":{"name":"x","steps":${'['.repeat(3000)}${']'.repeat(3000)}}}`,
  `{"deep":${'['.repeat(5000)}${']'.repeat(5000)}}`,
  `{"message":${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}}`,
  '{"from":1}',
  '{"from":{},"to":{},"content":1}',
  `{"name":"${'x'.repeat(100_000)}"}`,
  '{"text":"\\ud800"}',
  '{"input":{"x":"\\u0000"}}',
  `{"wallet":"0x${'g'.repeat(40)}"}`,
  '{"agentCard":null}',
  '{"trustTier":"root"}',
  '{"limit":-1,"maxWallMs":"NaN"}',
  '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":null}',
  '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":1}}',
  '{"jsonrpc":"2.0","id":{},"method":"x"}',
  '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":1}}',
  '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"name":"tasks/../x"}}',
]

type Route = { method: string; path: string }

describe('every route, given malformed input', () => {
  let app: FastifyInstance
  let routes: Route[]
  // Ids that exist, so the bodies reach the handlers behind the look-ups too.
  const real: Record<string, string> = {}

  beforeAll(async () => {
    // The limit per client is raised: every request here is one client's, and a 429 would
    // answer for the route.
    app = await createTestApp({ apiToken: token, rateLimit: { max: 1_000_000, windowMs: 60_000 } })
    await seedDemo(app.baton)
    const paths = (app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths
    routes = Object.entries(paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })),
    )
    // The MCP endpoint answers JSON-RPC of its own and is not in the OpenAPI document.
    routes.push({ method: 'POST', path: '/mcp' })
    const agents = await app.inject({ url: '/api/v1/agents', headers: authorized })
    real.wallet = agents.json().agents[0].wallet
    const run = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      headers: authorized,
      payload: {
        plan: {
          name: 'fuzz',
          steps: [{ op: 'delegate', saveAs: 'a', agentWallet: real.wallet, prompt: 'Hi' }],
        },
      },
    })
    real.id = run.json().id
  })

  afterAll(async () => {
    await app.close()
  })

  /** The route's path with each parameter given `value` (the wildcard too). */
  const fill = (path: string, value: string) =>
    path.replace(/\{\*\}/g, value).replace(/\{[A-Za-z]+\}/g, value)

  it('answers each with a 4xx that names what was wrong, never a 5xx', async () => {
    // A stream of something that exists stays open: a stream route is given odd ids only
    // (each must be refused, not opened), and one with no id is left to its own tests.
    const streams = (path: string) => /\/events$|\/stream$/.test(path)
    const tried = routes.filter(({ path }) => !streams(path) || path.includes('{'))
    // Deletions last, so the ids stay real for the rest.
    tried.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'))
    expect(tried.length).toBeGreaterThan(35)
    const failures: string[] = []
    let requests = 0
    for (const { method, path } of tried) {
      const params = !path.includes('{')
        ? ['']
        : streams(path)
          ? ODD_PARAMS
          : [...ODD_PARAMS, path.includes('{wallet}') ? real.wallet : real.id]
      const bodies = method === 'GET' ? [undefined] : ODD_BODIES
      for (const param of new Set(params)) {
        for (const query of ODD_QUERIES) {
          for (const body of bodies) {
            const url = `${fill(path, param ?? '')}${query}`
            const answer = await app.inject({
              method: method as 'GET',
              url,
              headers: {
                ...authorized,
                'a2a-version': '1.0',
                accept: 'application/json, text/event-stream',
                ...(body === undefined ? {} : { 'content-type': 'application/json' }),
              },
              ...(body === undefined ? {} : { payload: body }),
            })
            requests += 1
            const where = `${method} ${url.slice(0, 100)} ${body?.slice(0, 60) ?? ''}`
            if (answer.statusCode >= 500) {
              failures.push(`${where} → ${answer.statusCode} ${answer.body.slice(0, 200)}`)
            } else if (answer.statusCode >= 400 && !namesItsError(path, answer.body)) {
              failures.push(
                `${where} → ${answer.statusCode} without a typed error: ${answer.body.slice(0, 200)}`,
              )
            }
          }
        }
      }
    }
    expect(requests).toBeGreaterThan(10_000)
    expect(failures).toEqual([])
  }, 300_000)

  // Another route may take the method at the same path (`PATCH /api/v1/agents/search` is the
  // agent "search"'s): that route answers. Where none does, a 405 names the methods there;
  // never the 404 "route not found" that reads as "no such thing".
  it('answers a method no route at a path has with 405 and the methods there, at every path', async () => {
    const methodsAt = new Map<string, Set<string>>()
    for (const { method, path } of routes) {
      methodsAt.set(path, (methodsAt.get(path) ?? new Set()).add(method))
    }
    const failures: string[] = []
    let tried = 0
    let answered405 = 0
    for (const [path, methods] of methodsAt) {
      const url = fill(path, path.includes('{wallet}') ? real.wallet! : real.id!)
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        if (methods.has(method)) continue
        tried += 1
        const answer = await app.inject({ method: method as 'GET', url, headers: authorized })
        const allowed = String(answer.headers.allow ?? '').split(', ')
        const error = answer.json().error
        const where = `${method} ${url} → ${answer.statusCode} ${error?.code} allow "${answer.headers.allow}"`
        if (answer.statusCode === 404 && error?.details?.what === 'route') failures.push(where)
        else if (answer.statusCode >= 500) failures.push(where)
        else if (answer.statusCode === 405) {
          answered405 += 1
          const listed = [...methods].every((each) => allowed.includes(each))
          if (!listed || error?.code !== 'METHOD_NOT_ALLOWED') failures.push(where)
        }
      }
    }
    expect(tried).toBeGreaterThan(120)
    expect(answered405).toBeGreaterThan(100)
    expect(failures).toEqual([])
  })
})

/**
 * A 4xx body says what went wrong: Baton's `{ error: { code, message } }` on every route, or,
 * from A2A and MCP once their JSON-RPC handler has the request, JSON-RPC's numeric code.
 */
function namesItsError(path: string, body: string): boolean {
  let parsed: { error?: { code?: unknown; message?: unknown } }
  try {
    parsed = JSON.parse(body)
  } catch {
    return false
  }
  const error = parsed.error
  if (!error || typeof error.message !== 'string' || error.message === '') return false
  if (typeof error.code === 'string' && error.code !== '') return true
  return (path.startsWith('/a2a/') || path === '/mcp') && typeof error.code === 'number'
}
