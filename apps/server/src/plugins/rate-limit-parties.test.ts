import type { FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { makeApiKey } from '../__fixtures__/api-keys'
import { listenTestApp } from '../__fixtures__/listen-test-app'
import { readSettings, type Settings } from '../settings'

// Many parties on one server, from one address (a company behind one NAT, or every client of
// a proxy): each API key has its own allowance, so one cannot spend the others'; and neither
// a made-up credential nor a made-up forwarded address buys a fresh one.
const adminToken = 'rate-limit-admin-token-0123456789'
const max = 10
let served: { app: FastifyInstance; base: string; close: () => Promise<void> } | undefined
afterEach(async () => {
  await served?.close()
  served = undefined
})

async function serve(settings: Partial<Settings>) {
  served = await listenTestApp({ settings: { rateLimit: { max, windowMs: 60_000 }, ...settings } })
  return served
}

async function statuses(count: number, request: (index: number) => Promise<Response>) {
  const seen: number[] = []
  for (let index = 0; index < count; index += 1) {
    const response = await request(index)
    await response.arrayBuffer()
    seen.push(response.status)
  }
  return seen
}

describe('the rate limit among many parties', () => {
  it('gives each API key its own allowance: one key past its own is refused, another from the same address is not', async () => {
    const { app, base } = await serve({ apiToken: adminToken })
    const makeKey = (name: string) => makeApiKey(app, adminToken, name)
    const [alice, bob] = [await makeKey('alice'), await makeKey('bob')]
    const runsAs = (key: string) => () =>
      fetch(`${base}/api/v1/runs`, { headers: { authorization: `Bearer ${key}` } })

    const aliceSaw = await statuses(2 * max, runsAs(alice))
    expect(aliceSaw.slice(0, max)).toEqual(Array(max).fill(200))
    expect(aliceSaw.at(-1)).toBe(429)
    // Bob, on the same address, has his own allowance.
    expect(await statuses(max - 1, runsAs(bob))).toEqual(Array(max - 1).fill(200))
  })

  it('counts made-up credentials against their address: a new one each time buys nothing', async () => {
    const { base } = await serve({ apiToken: adminToken })
    const seen = await statuses(2 * max, (index) =>
      fetch(`${base}/api/v1/runs`, {
        headers: { authorization: `Bearer bk_made_up_${index}_${crypto.randomUUID()}` },
      }),
    )
    expect(seen.slice(0, max)).toEqual(Array(max).fill(401))
    expect(seen.slice(max)).toEqual(Array(max).fill(429))
  })

  it('ignores X-Forwarded-For unless BATON_TRUST_PROXY trusts the proxy, then counts each client it names apart', async () => {
    const forwardedAs = (base: string) => (index: number) =>
      fetch(`${base}/api/v1/agents`, { headers: { 'x-forwarded-for': `203.0.113.${index + 1}` } })

    const direct = await serve({})
    const spoofed = await statuses(2 * max, forwardedAs(direct.base))
    expect(spoofed.at(-1)).toBe(429)
    await direct.close()
    served = undefined

    // Behind a proxy on 127.0.0.1: the clients it names are told apart.
    const proxied = await serve({ trustProxy: '127.0.0.1' })
    expect(await statuses(2 * max, forwardedAs(proxied.base))).toEqual(Array(2 * max).fill(200))
    // One client through it, past its allowance, is refused.
    const one = await statuses(2 * max, () => forwardedAs(proxied.base)(99))
    expect(one.at(-1)).toBe(429)
  })

  it('reads BATON_TRUST_PROXY as fastify does: unset none, true any, a number of hops, or addresses', () => {
    expect(readSettings({}).trustProxy).toBeUndefined()
    expect(readSettings({ BATON_TRUST_PROXY: 'false' }).trustProxy).toBeUndefined()
    expect(readSettings({ BATON_TRUST_PROXY: 'true' }).trustProxy).toBe(true)
    const hops = readSettings({ BATON_TRUST_PROXY: '2' }).trustProxy as (
      address: string,
      hop: number,
    ) => boolean
    expect([0, 1, 2].map((hop) => hops('10.0.0.1', hop))).toEqual([true, true, false])
    expect(readSettings({ BATON_TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).trustProxy).toBe(
      '10.0.0.0/8,127.0.0.1',
    )
  })
})
