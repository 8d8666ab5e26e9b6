import { createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { runPlan } from './run-plan'

const registry = createStaticRegistry([])

describe('runPlan values', () => {
  it('keeps a scratch key named __proto__ like any other key', async () => {
    const result = await runPlan(
      {
        steps: [
          { op: 'scratch', action: 'write', key: '__proto__', value: 'kept' },
          { op: 'scratch', action: 'read', key: '__proto__', saveAs: 'read' },
          { op: 'scratch', action: 'list', saveAs: 'keys' },
          { op: 'stop', output: { read: '{{read}}', keys: '{{keys}}' } },
        ],
      },
      { registry },
    )
    expect(result.output).toEqual({ read: 'kept', keys: ['__proto__'] })
  })

  it('keeps values saved inside fanout branches in the branch (not in result.values or the state)', async () => {
    const result = await runPlan(
      {
        steps: [
          { op: 'scratch', action: 'write', key: 'k', value: 'before', saveAs: 'before' },
          {
            op: 'fanout',
            saveAs: 'all',
            branches: [
              {
                id: 'one',
                steps: [{ op: 'scratch', action: 'write', key: 'k', value: 1, saveAs: 'inner' }],
              },
            ],
          },
          { op: 'ask_user', saveAs: 'go', question: 'go?' },
        ],
      },
      { registry },
    )
    expect(result.status).toBe('paused')
    expect(Object.keys(result.values).sort()).toEqual(['all', 'before'])
    expect(Object.keys(result.state?.values ?? {}).sort()).toEqual(['all', 'before'])
    expect(result.values.all).toEqual({ one: 1 })
  })

  it('lets a branch, and a fanout nested in it, read the values of the blocks around them', async () => {
    const result = await runPlan(
      {
        steps: [
          { op: 'scratch', action: 'write', key: 'r', value: 'run', saveAs: 'atRun' },
          {
            op: 'fanout',
            saveAs: 'outer',
            branches: ['a', 'b'].map((id) => ({
              id,
              steps: [
                { op: 'scratch', action: 'write', key: `k${id}`, value: id, saveAs: `own_${id}` },
                {
                  op: 'fanout',
                  saveAs: `inner_${id}`,
                  branches: [
                    {
                      id: 'deep',
                      steps: [
                        {
                          op: 'scratch',
                          action: 'write',
                          key: `d${id}`,
                          value: `{{atRun}}/{{own_${id}}}`,
                          saveAs: `deep_${id}`,
                        },
                      ],
                    },
                  ],
                },
              ],
            })),
          },
          { op: 'stop', output: '{{outer}}' },
        ],
      },
      { registry },
    )
    expect(result.status).toBe('done')
    expect(result.output).toEqual({ a: { deep: 'run/a' }, b: { deep: 'run/b' } })
    expect(Object.keys(result.values).sort()).toEqual(['atRun', 'outer'])
  })

  it('keeps a bounded number of events in the result of a 10 000-iteration loop', async () => {
    let streamed = 0
    const result = await runPlan(
      {
        steps: [
          {
            op: 'loop',
            while: 'true',
            maxIters: 10_000,
            do: [{ op: 'scratch', action: 'write', key: 'k', value: 'v' }],
          },
          { op: 'stop', output: 'ok' },
        ],
      },
      { registry, onEvent: () => void streamed++ },
    )
    expect(result.status).toBe('done')
    expect(streamed).toBe(20_006)
    expect(result.events.length).toBeLessThanOrEqual(1000)
    expect(result.eventsDropped).toBe(streamed - result.events.length)
    expect(result.events[0]?.type).toBe('run-start')
    expect(result.events.at(-1)?.type).toBe('run-finish')
  })
})
