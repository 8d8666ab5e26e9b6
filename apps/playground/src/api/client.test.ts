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
  ['revokeAgent', () => serverApi.revokeAgent('0xabc', { signature: '0x1' }), 200, {}],
  ['createSwarm', () => serverApi.createSwarm({ id: 's' }), 201, { swarm: {} }],
  ['updateSwarm', () => serverApi.updateSwarm('s', { name: 'S' }), 200, { swarm: {} }],
  ['deleteSwarm', () => serverApi.deleteSwarm('s'), 200, { deleted: 's' }],
  ['answerRun', () => serverApi.answerRun('r', 'yes', 'Ship?'), 202, { id: 'r' }],
  ['cancelRun', () => serverApi.cancelRun('r'), 200, { id: 'r' }],
  ['resumeRun', () => serverApi.resumeRun('r'), 202, { id: 'r' }],
] as const)('serverApi.%s', (_name, call, status, answer) => {
  // Every change a person makes: one whose answer was lost is not refused as a conflict with
  // itself (or done twice) when sent again.
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
