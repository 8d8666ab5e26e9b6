import { lookup } from 'node:dns/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { hostname } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { createOriginPolicy } from './origin-policy'
import { type OriginProxy, REFUSED_HEADER, startOriginProxy } from './origin-proxy'

const hits: string[] = []
const site = http.createServer((request, response) => {
  hits.push(`${request.headers.host}${request.url}`)
  response.end('site')
})
let proxy: OriginProxy | undefined
afterEach(async () => {
  await proxy?.close()
  site.close(() => {})
  hits.length = 0
})

// A plain-HTTP request through the proxy, as a browser sends it (absolute URL).
function viaProxy(url: string): Promise<{ status: number; refused: boolean; body: string }> {
  const { port } = new URL(proxy!.server)
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: '127.0.0.1',
      port,
      path: url,
      headers: { host: new URL(url).host },
    })
    request.on('response', (response) => {
      let body = ''
      response.on('data', (chunk) => (body += chunk))
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          refused: REFUSED_HEADER in response.headers,
          body,
        }),
      )
    })
    request.on('error', reject)
    request.end()
  })
}

// A CONNECT tunnel request, as a browser sends it for https.
function connect(authority: string): Promise<number> {
  const { port } = new URL(proxy!.server)
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method: 'CONNECT', path: authority })
    request.on('connect', (response, socket) => {
      socket.destroy()
      resolve(response.statusCode ?? 0)
    })
    request.on('error', reject)
    request.end()
  })
}

describe('startOriginProxy', () => {
  it('refuses a name that resolves to a loopback address unless loopback is allowed', async (context) => {
    const name = hostname()
    const address = await lookup(name).catch(() => undefined)
    if (!address?.address.startsWith('127.')) {
      context.skip(`this machine's name (${name}) does not resolve to a loopback address`)
    }
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
    const port = (site.address() as AddressInfo).port
    const refusals: string[] = []
    proxy = await startOriginProxy({
      policy: createOriginPolicy({ allowedOrigins: ['*'] }),
      onRefused: (_url, reason) => refusals.push(reason),
    })
    const refused = await viaProxy(`http://${name}:${port}/secret`)
    expect(refused).toMatchObject({ status: 403, refused: true })
    expect(refusals.at(-1)).toMatch(/resolves to a loopback address/)
    expect(await viaProxy(`http://127.0.0.1:${port}/secret`)).toMatchObject({ status: 403 })
    expect(await connect(`${name}:${port}`)).toBe(403)
    expect(hits).toEqual([])
    await proxy.close()

    // Liveness: with loopback allowed, the same name goes through.
    proxy = await startOriginProxy({
      policy: createOriginPolicy({
        allowedOrigins: [`http://${name}:${port}`],
        allowLoopback: true,
      }),
      onRefused: () => {},
    })
    expect(await viaProxy(`http://${name}:${port}/page`)).toMatchObject({
      status: 200,
      body: 'site',
    })
    expect(hits).toEqual([`${name}:${port}/page`])
  })
})
