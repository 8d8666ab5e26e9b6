import { createRegistryClient } from '@baton/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentRecord, analystWallet } from '../__fixtures__/agents'
import { type RegistryServer, startRegistryServer } from '../__fixtures__/registry-server'
import { seedPlan as seed } from '../__fixtures__/seed-plan'
import { runPlan } from './run-plan'

let registry: RegistryServer
beforeAll(async () => {
  registry = await startRegistryServer({ [analystWallet]: { kind: 'agent', body: agentRecord() } })
})
afterAll(() => registry.close())

describe('runPlan against a registry server', () => {
  it('runs the seed plan end to end with the offline model and attributes spend to the agent', async () => {
    const client = createRegistryClient({ baseUrl: registry.url })
    const seen: string[] = []
    const result = await runPlan(seed, {
      inputs: { request: 'Refund order 1182 twice' },
      registry: client,
      // The delegate's streamed text (live step-delta events) aside, every event once, in order.
      onEvent: (event) => {
        if (event.type !== 'step-delta') seen.push(event.type)
      },
    })
    expect(result.status).toBe('done')
    expect(result.output).toMatch(/^Risk Analyst \(specialist\): .*Refund order 1182 twice/)
    expect(result.values.analysis).toBe(result.output)
    expect(seen).toEqual([
      'run-start',
      'step-start',
      'step-finish',
      'step-start',
      'step-finish',
      'run-finish',
    ])
    expect(result.events.map((event) => event.type)).toEqual(seen)
    expect(result.events.map((event) => event.sequence)).toEqual([0, 1, 2, 3, 4, 5])
    const finish = result.events.find((event) => event.type === 'step-finish')
    expect(finish).toMatchObject({ path: 'steps[0]', op: 'delegate', wallet: analystWallet })
    expect(result.usage.calls).toBe(1)
    expect(result.usage.costUsd).toBeGreaterThan(0)
    expect(result.usageByWallet[analystWallet]).toEqual(result.usage)
    expect(registry.requests).toContain(analystWallet.toLowerCase())
  })

  // A registry that is gone: a port that was listening a moment ago and is now closed.
  let goneUrl: string
  beforeAll(async () => {
    const gone = await startRegistryServer({})
    goneUrl = gone.url
    await gone.close()
  })

  const failing: [string, string, () => void, string][] = [
    [
      '404 (unregistered)',
      '0x4444444444444444444444444444444444444444',
      () => {},
      'UNREGISTERED_AGENT',
    ],
    [
      '500',
      '0x5555555555555555555555555555555555555555',
      () =>
        registry.set('0x5555555555555555555555555555555555555555', { kind: 'status', status: 500 }),
      'REGISTRY_UNAVAILABLE',
    ],
    [
      'a garbage body',
      '0x6666666666666666666666666666666666666666',
      () => registry.set('0x6666666666666666666666666666666666666666', { kind: 'garbage' }),
      'REGISTRY_UNAVAILABLE',
    ],
    [
      'a timeout',
      '0x7777777777777777777777777777777777777777',
      () => registry.set('0x7777777777777777777777777777777777777777', { kind: 'hang' }),
      'REGISTRY_UNAVAILABLE',
    ],
    ['a malformed wallet', '0x12345', () => {}, 'MALFORMED_WALLET'],
    ['a network error', analystWallet, () => {}, 'REGISTRY_UNAVAILABLE'],
  ]

  for (const [row, wallet, arrange, code] of failing)
    for (const op of ['delegate', 'task'] as const) {
      it(`fails a ${op} step closed when the registry look-up meets ${row}`, async () => {
        arrange()
        const before = registry.requests.length
        const baseUrl = row === 'a network error' ? goneUrl : registry.url
        const result = await runPlan(
          {
            inputs: { reviewer: 'string' },
            steps: [
              {
                op,
                saveAs: 'analysis',
                agentWallet: '{{inputs.reviewer}}',
                prompt: 'Review this',
              },
              { op: 'stop', output: '{{analysis}}' },
            ],
          },
          {
            inputs: { reviewer: wallet },
            registry: createRegistryClient({ baseUrl, timeoutMs: 300 }),
          },
        )
        expect(result.status).toBe('failed')
        expect(result.error).toMatchObject({ code, path: 'steps[0]' })
        const stepError = result.events.find((event) => event.type === 'step-error')
        expect(stepError).toMatchObject({
          path: 'steps[0]',
          code,
          usage: { calls: 0, tokens: 0, costUsd: 0 },
        })
        expect(result.events.some((event) => event.type === 'step-finish')).toBe(false)
        expect(result.usage).toEqual({ calls: 0, tokens: 0, costUsd: 0 })
        expect(result.usageByWallet).toEqual({})
        // A malformed wallet is refused before any request is made.
        if (code === 'MALFORMED_WALLET') expect(registry.requests.length).toBe(before)
      })
    }
})
