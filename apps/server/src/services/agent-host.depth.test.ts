import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'
import { readSettings } from '../settings'
import { converse, hostAgent, spendOf } from './__fixtures__/hosted-agents'

// The worker's own directive, escaped so the lead's offline model does not read it as its own.
const nested = (directive: string) =>
  JSON.stringify(directive).slice(1, -1).replaceAll('[', '\\u005b').replaceAll(']', '\\u005d')
const startPlanner = `[[tool:start_subagent {"agentId":"planner","task":"${nested(
  '[[tool:delegate_agent {"task":"dig one level deeper"}]]',
)}"}]]`

async function delegationApp(maxDelegationDepth: number) {
  const app = await createTestApp({ maxDelegationDepth })
  await hostAgent(app, 'lead', { agentCard: { canDelegate: true } })
  // A worker that may delegate in its turn (its card lists the supervisor's tool).
  await hostAgent(app, 'planner', { tools: ['delegate_agent'], agentCard: { canDelegate: true } })
  return app
}

describe('createAgentHost: the depth of hosted sub-agents', () => {
  const apps: FastifyInstance[] = []
  afterAll(async () => {
    for (const app of apps) await app.close()
  })

  describe('with BATON_MAX_DELEGATION_DEPTH 0', () => {
    let app: FastifyInstance
    beforeAll(async () => {
      app = await delegationApp(0)
      apps.push(app)
    })

    it('refuses start_subagent with an error naming the depth, before the sub-agent spends', async () => {
      const messages = await converse(app, 'lead', startPlanner)
      const reply = messages.at(-1)!.content
      expect(reply).toContain('start_subagent → error:')
      expect(reply).toContain('a sub-agent at depth 1 would exceed the maximum depth of 0')
      const planner = await app.baton.repositories.agents.findById('planner')
      expect((await spendOf(app, planner!.wallet)).calls).toBe(0)
    })
  })

  describe('with BATON_MAX_DELEGATION_DEPTH 1', () => {
    let app: FastifyInstance
    beforeAll(async () => {
      app = await delegationApp(1)
      apps.push(app)
    })

    it('runs the sub-agent at depth 1 and refuses the one it would start at depth 2', async () => {
      const messages = await converse(app, 'lead', startPlanner)
      const reply = messages.at(-1)!.content
      // The sub-agent ran and answered (liveness); its own delegation was refused.
      expect(reply).toContain('start_subagent → {"answer":')
      expect(reply).toContain(
        'delegate_agent → error: Cannot delegate: a sub-agent at depth 2 would exceed the maximum depth of 1',
      )
      const planner = await app.baton.repositories.agents.findById('planner')
      expect((await spendOf(app, planner!.wallet)).calls).toBeGreaterThan(0)
    })
  })

  describe('with the default depth (3)', () => {
    let app: FastifyInstance
    beforeAll(async () => {
      app = await delegationApp(readSettings({}).maxDelegationDepth)
      apps.push(app)
    })

    it('lets the sub-agent delegate in its turn', async () => {
      const messages = await converse(app, 'lead', startPlanner)
      const reply = messages.at(-1)!.content
      // The sub-agent at depth 2 was started (mal names it after its parent's id).
      expect(reply).toMatch(/delegate_agent → \{\\"id\\":\\"sub-1\.1\\"\}/)
    })
  })

  it('reads BATON_MAX_DELEGATION_DEPTH as a whole number from 0 to 16', () => {
    expect(readSettings({}).maxDelegationDepth).toBe(3)
    expect(readSettings({ BATON_MAX_DELEGATION_DEPTH: '0' }).maxDelegationDepth).toBe(0)
    expect(() => readSettings({ BATON_MAX_DELEGATION_DEPTH: 'deep' })).toThrow(
      /BATON_MAX_DELEGATION_DEPTH/,
    )
    expect(() => readSettings({ BATON_MAX_DELEGATION_DEPTH: '-1' })).toThrow(
      /BATON_MAX_DELEGATION_DEPTH/,
    )
  })
})
