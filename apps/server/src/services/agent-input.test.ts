import { Agent } from '@baton/core'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newAgentAccounts } from '../__fixtures__/signed-agents'
import { createTestApp } from '../__fixtures__/test-app'

describe('a hosted agent with an inputSchema', () => {
  let app: FastifyInstance
  let agent: Agent
  beforeAll(async () => {
    app = await createTestApp()
    const { agent: input, creator } = newAgentAccounts('order-desk')
    agent = Agent.parse({
      ...input,
      agentCard: {
        inputSchema: {
          type: 'object',
          properties: { orderId: { type: 'integer' } },
          required: ['orderId'],
        },
      },
    })
    await app.baton.repositories.agents.insert(agent, creator.address)
  })
  afterAll(async () => {
    await app.close()
  })

  it('refuses a message (A2A, bus, HTTP) that does not match, before anything is spent', async () => {
    await expect(
      app.baton.agentHost.runHostedAgent({ agent: agent.wallet, input: '{"orderId": "x"}' }),
    ).rejects.toMatchObject({ code: 'AGENT_INPUT_INVALID' })
    const spend = (await app.inject({ method: 'GET', url: '/api/v1/spend?by=agent' })).json()
    expect(JSON.stringify(spend)).not.toContain(agent.wallet)
  })

  it('answers a message that matches', async () => {
    const result = await app.baton.agentHost.runHostedAgent({
      agent: agent.wallet,
      input: '{"orderId": 1182}',
    })
    expect(result.text.length).toBeGreaterThan(0)
  })
})
