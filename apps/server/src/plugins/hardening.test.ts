import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'

const token = 'hardening-token-0123456789abcdef'
let app: FastifyInstance
let playgroundDir: string
beforeAll(async () => {
  playgroundDir = await mkdtemp(join(tmpdir(), 'baton-hardening-'))
  await writeFile(join(playgroundDir, 'index.html'), '<!doctype html><title>p</title>')
  await writeFile(join(playgroundDir, 'app.js'), 'console.log(1)')
  app = await createTestApp({
    apiToken: token,
    playgroundDir,
    rateLimit: { max: 8, windowMs: 60_000 },
  })
})
afterAll(async () => {
  await app.close()
  await rm(playgroundDir, { recursive: true, force: true })
})

const plan = { steps: [{ op: 'stop', output: 'ok' }] }

describe('hardening', () => {
  it('matches the Bearer scheme case-insensitively', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/runs',
        payload: { plan },
        headers: { authorization: `${scheme} ${token}` },
      })
      expect(response.statusCode, scheme).toBe(202)
    }
  })

  it('sends a Content-Security-Policy with the playground, the page and its files', async () => {
    for (const url of ['/', '/app.js', '/some/spa/route']) {
      const response = await app.inject({ method: 'GET', url })
      expect(response.statusCode, response.body).toBe(200)
      const policy = response.headers['content-security-policy']
      expect(policy, url).toContain("script-src 'self'")
      expect(policy, url).toContain("connect-src 'self'")
      expect(policy, url).toContain("frame-ancestors 'none'")
      expect(policy, url).not.toContain("'unsafe-eval'")
    }
  })

  it('rate-limits the not-found handler like any route', async () => {
    let status = 0
    for (let index = 0; index < 20 && status !== 429; index++) {
      status = (
        await app.inject({
          method: 'GET',
          url: `/api/v1/nothing-${index}`,
          headers: { 'x-client': 'scanner' },
        })
      ).statusCode
    }
    expect(status).toBe(429)
  })
})
