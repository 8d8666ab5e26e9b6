import { Agent, createBudget, createModelRegistry, createOfflineModel } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { createAgentRunner } from './create-agent-runner'
import type { SubagentTurn } from './types'

const agent = Agent.parse({
  id: 'worker',
  wallet: '0x52908400098527886E0F7030069857D2E4169EE7',
  creator: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  name: 'Worker',
  type: 'worker',
  model: 'offline:default',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
})

function turnOf(overrides: Partial<SubagentTurn> = {}): SubagentTurn {
  const budget = createBudget({ calls: 2 })
  return {
    agent,
    messages: [{ role: 'user', content: 'Say hello' }],
    budget,
    signal: budget.signal,
    tools: {},
    directory: '/nowhere',
    models: createModelRegistry({ providers: { offline: () => createOfflineModel() } }),
    ...overrides,
  }
}

describe('createAgentRunner', () => {
  it('answers a turn with its text and only the messages the turn added', async () => {
    const result = await createAgentRunner().run(turnOf())
    expect(result.text).toMatch(/\S/)
    expect(result.messages).toEqual([
      expect.objectContaining({
        role: 'assistant',
        content: [expect.objectContaining({ type: 'text' })],
      }),
    ])
  })

  it('rejects, never throws, whatever goes wrong: a cancelled budget, a turn with no card', async () => {
    const cancelled = turnOf()
    cancelled.budget.cancel('stopped by the caller')
    const runner = createAgentRunner()
    let pending: Promise<unknown> | undefined
    expect(() => {
      pending = runner.run(cancelled)
    }).not.toThrow()
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' })
    expect(() => {
      pending = runner.run(turnOf({ agent: undefined as never }))
    }).not.toThrow()
    await expect(pending).rejects.toBeInstanceOf(TypeError)
  })
})
