import { afterEach, describe, expect, it, vi } from 'vitest'
import { serverApi } from './client'

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('serverApi.startRun', () => {
  // The Runs view's Start button: a run whose answer was lost is not started twice.
  it('posts the run with an Idempotency-Key and posts it again with the same key when no answer came', async () => {
    const keys: (string | null)[] = []
    const fetched = vi.fn(async (_input: RequestInfo | URL, init?: RequestInit) => {
      keys.push(new Headers(init?.headers).get('idempotency-key'))
      if (keys.length === 1) throw new TypeError('fetch failed')
      return new Response(JSON.stringify({ id: 'run-1' }), {
        status: 202,
        headers: { 'content-type': 'application/json' },
      })
    })
    vi.stubGlobal('fetch', fetched)
    await expect(serverApi.startRun({ plan: 'name: p', inputs: {} })).resolves.toBe('run-1')
    expect(keys).toHaveLength(2)
    expect(keys[0]).toMatch(/^create_/)
    expect(keys[1]).toBe(keys[0])
  })
})

describe.each([
  ['registerAgent', () => serverApi.registerAgent({ agent: { id: 'a' } }), 201, { agent: {} }],
  ['createSwarm', () => serverApi.createSwarm({ id: 's' }), 201, { swarm: {} }],
] as const)('serverApi.%s', (_name, call, status, answer) => {
  // The Agents view's registration and the Swarms view's creation: one whose answer was lost
  // is not refused as a conflict with itself when sent again.
  it('posts with an Idempotency-Key and posts again with the same key when no answer came', async () => {
    const keys: (string | null)[] = []
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_input: RequestInfo | URL, init?: RequestInit) => {
        keys.push(new Headers(init?.headers).get('idempotency-key'))
        if (keys.length === 1) throw new TypeError('fetch failed')
        return new Response(JSON.stringify(answer), {
          status,
          headers: { 'content-type': 'application/json' },
        })
      }),
    )
    await expect(call()).resolves.toEqual(answer)
    expect(keys).toHaveLength(2)
    expect(keys[0]).toMatch(/^create_/)
    expect(keys[1]).toBe(keys[0])
  })
})
