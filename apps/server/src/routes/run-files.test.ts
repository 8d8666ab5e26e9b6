import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM, chromiumAvailable } from '../__fixtures__/chromium'
import { createTestApp } from '../__fixtures__/test-app'
import { hostAgent } from '../services/__fixtures__/hosted-agents'

const adminToken = 'run-files-admin-token-0123456789'
const shot = 'steps[0]/screenshots/screenshot-1.png'

// One request on a socket of its own, its path sent exactly as written (fetch would resolve
// `..` and re-encode it before the server saw it).
function rawGet(
  base: string,
  path: string,
  key: string,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) })
    let text = ''
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1')
    })
    socket.on('error', reject)
    socket.on('end', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n')
      resolve({ status: Number(head.split(' ')[1]), body })
    })
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
    )
  })
}

describe.runIf(chromiumAvailable('the run files tests'))('GET /api/v1/runs/:id/files/*', () => {
  let app: FastifyInstance
  let base: string
  let page: http.Server
  let origin: string
  let alice: string
  let bob: string
  let runId: string
  const call = (path: string, key?: string) =>
    fetch(`${base}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} })
  const makeKey = async (name: string) => {
    const response = await fetch(`${base}/api/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, scopes: ['read', 'run'] }),
    })
    expect(response.status).toBe(201)
    return ((await response.json()) as { key: string }).key
  }

  beforeAll(async () => {
    page = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' })
      response.end(
        '<title>Deploys</title><body style="background:#0a7"><h1>Deploy 42 is green</h1></body>',
      )
    })
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`
    app = await createTestApp({
      apiToken: adminToken,
      publicReads: undefined,
      browserWorkspaces: {
        allowedOrigins: [origin],
        allowLoopback: true,
        executablePath: CHROMIUM,
      },
    })
    base = await app.listen({ port: 0, host: '127.0.0.1' })
    alice = await makeKey('alice')
    bob = await makeKey('bob')
    const worker = await hostAgent(app, 'deploy-watcher', {
      tools: ['open_page', 'read_page', 'screenshot'],
    })
    const started = await fetch(`${base}/api/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        plan: {
          steps: [
            {
              op: 'task',
              agentWallet: worker.wallet,
              workspace: 'browser',
              saveAs: 'seen',
              prompt: `Check the deploys [[tool:open_page {"url":"${origin}/"}]][[tool:screenshot]]`,
            },
          ],
        },
      }),
    })
    expect(started.status).toBe(202)
    runId = ((await started.json()) as { id: string }).id
    await waitFor(
      async () => {
        const run = (await (await call(`/api/v1/runs/${runId}`, alice)).json()) as {
          status: string
        }
        return ['done', 'failed'].includes(run.status) ? run : undefined
      },
      { timeoutMs: 60_000 },
    )
  }, 90_000)
  afterAll(async () => {
    await app?.close()
    page?.closeAllConnections()
    page?.close()
  })

  it("names the task's screenshot in the run's tree and serves it as a PNG to the run's owner", async () => {
    const run = (await (await call(`/api/v1/runs/${runId}`, alice)).json()) as {
      status: string
      tree: { children: { path: string; files: { name: string; bytes: number }[] }[] }
    }
    expect(run.status).toBe('done')
    const [file] = run.tree.children[0]!.files
    expect(file).toMatchObject({ name: shot, file: 'screenshots/screenshot-1.png' })
    const response = await call(
      `/api/v1/runs/${runId}/files/${shot.split('/').map(encodeURIComponent).join('/')}`,
      alice,
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('image/png')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    const png = Buffer.from(await response.arrayBuffer())
    expect(png.byteLength).toBe(file!.bytes)
    expect(png.subarray(1, 4).toString()).toBe('PNG')
    // The page's own green fills the shot: it is this page, not a blank one.
    expect(png.readUInt32BE(16)).toBeGreaterThan(0)
  })

  it("keeps a run's files from other principals and from requests without a key", async () => {
    const path = `/api/v1/runs/${runId}/files/${encodeURIComponent('steps[0]')}/screenshots/screenshot-1.png`
    expect((await call(path, bob)).status).toBe(404)
    expect((await call(path)).status).toBe(401)
    expect((await call(path, adminToken)).status).toBe(200)
  })

  it('answers 404 for a name the run has not, and for a run that does not exist', async () => {
    const missing = await call(
      `/api/v1/runs/${runId}/files/steps%5B0%5D/screenshots/nope.png`,
      alice,
    )
    expect(missing.status).toBe(404)
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND')
    expect((await call(`/api/v1/runs/run-nope/files/${shot}`, alice)).status).toBe(404)
  })

  it('refuses dot segments, however they are spelled, with a 400 naming the file name', async () => {
    const prefix = `/api/v1/runs/${runId}/files`
    for (const path of [
      `${prefix}/steps[0]/../steps[0]/screenshots/screenshot-1.png`,
      `${prefix}/../../../../etc/passwd`,
      `${prefix}/%2e%2e/%2e%2e/agents`,
      `${prefix}/%2E%2E%2F%2E%2E%2Fkeys`,
      `${prefix}/steps[0]/screenshots/..%2f..%2fscreenshot-1.png`,
      `${prefix}/steps[0]%5c..%5cscreenshots/screenshot-1.png`,
      `${prefix}/./steps[0]/screenshots/screenshot-1.png`,
      `${prefix}/steps[0]//screenshots/screenshot-1.png`,
    ]) {
      const response = await rawGet(base, path, alice)
      expect({ path, status: response.status }).toEqual({ path, status: 400 })
      expect(response.body).toContain('VALIDATION_FAILED')
      expect(response.body).toContain('must be a file name of the run')
      expect(response.body).not.toContain('PNG')
    }
    // Encoded twice, a dot is just a name the run does not have.
    const twice = await rawGet(base, `${prefix}/%252e%252e/%252e%252e/agents`, alice)
    expect(twice.status).toBe(404)
  })
})
