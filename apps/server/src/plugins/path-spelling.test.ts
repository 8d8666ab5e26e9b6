import { request as httpRequest } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'

const token = 'path-spelling-token-0123456789'
let app: FastifyInstance
let port: number
let runId: string

/** One request with the target exactly as given (no client normalises it). */
function raw(
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, method, path: target, headers })
    request.on('response', (response) => {
      let body = ''
      // An open stream answered 200: its head is enough to tell.
      if (response.headers['content-type']?.startsWith('text/event-stream')) {
        resolve({ status: response.statusCode ?? 0, body: '' })
        response.destroy()
        return
      }
      response.on('data', (chunk) => {
        body += chunk
      })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    request.on('error', reject)
    request.end(method === 'POST' ? '{}' : undefined)
  })
}

/** `/api/v1/runs` spelled with a percent-encoded first letter: `/%61pi/v1/runs`. */
const encoded = (path: string) =>
  path.replace(/^\/(.)/, (_match, letter: string) => `/%${letter.charCodeAt(0).toString(16)}`)

beforeAll(async () => {
  app = await createTestApp({ apiToken: token, publicReads: false })
  await app.listen({ port: 0, host: '127.0.0.1' })
  port = (app.server.address() as { port: number }).port
  const started = await app.inject({
    method: 'POST',
    url: '/api/v1/runs',
    payload: { plan: { steps: [{ op: 'stop', output: 'secret output' }] } },
    headers: { authorization: `Bearer ${token}` },
  })
  runId = started.json().id
})
afterAll(async () => {
  await app.close()
})

const families = (): [string, string][] => [
  ['GET', '/api/v1/runs'],
  ['GET', `/api/v1/runs/${runId}`],
  ['GET', `/api/v1/runs/${runId}/events`],
  ['GET', `/api/v1/runs/${runId}/ledger`],
  ['GET', '/api/v1/spend'],
  ['GET', '/api/v1/ledger'],
  ['GET', '/api/v1/escalations'],
  ['GET', '/api/v1/messages/stream'],
  ['GET', '/api/v1/conversations/some-correlation'],
  ['GET', '/api/v1/swarms'],
  ['GET', '/api/v1/plans'],
  ['GET', '/api/v1/runtime'],
  ['GET', '/docs/json'],
  ['POST', '/api/v1/runs'],
  ['POST', `/api/v1/runs/${runId}/cancel`],
  ['POST', '/a2a/ops-orchestrator'],
]

describe('the token check under BATON_PUBLIC_READS=false, whatever the spelling of the path', () => {
  it('refuses every route family in plain, percent-encoded and absolute form without the token', async () => {
    const answered: string[] = []
    for (const [method, path] of families()) {
      for (const target of [path, encoded(path), `http://127.0.0.1:${port}${path}`]) {
        const { status } = await raw(method, target, { 'content-type': 'application/json' })
        if (status !== 401) answered.push(`${method} ${target} → ${status}`)
      }
    }
    expect(answered).toEqual([])
  })

  it('answers the same targets with the token (the refusal is the token, not the spelling)', async () => {
    const authorization = `Bearer ${token}`
    for (const target of [
      `/api/v1/runs/${runId}`,
      encoded(`/api/v1/runs/${runId}`),
      `http://127.0.0.1:${port}/api/v1/runs/${runId}`,
    ]) {
      const { status, body } = await raw('GET', target, { authorization })
      expect(status, target).toBe(200)
      expect(JSON.parse(body).id).toBe(runId)
    }
  })

  it('keeps /health open in every spelling', async () => {
    for (const target of ['/health', '/%68ealth', `http://127.0.0.1:${port}/health`]) {
      expect((await raw('GET', target)).status, target).toBe(200)
    }
  })
})
