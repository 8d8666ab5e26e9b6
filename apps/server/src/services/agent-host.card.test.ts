import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'
import { converse, hostAgent, spendOf } from './__fixtures__/hosted-agents'

let app: FastifyInstance
beforeAll(async () => {
  app = await createTestApp()
  await hostAgent(app, 'lead', { tools: [], agentCard: { canDelegate: true } })
  await hostAgent(app, 'clerk')
  await hostAgent(app, 'assessor', {
    agentCard: {
      outputSchema: {
        type: 'object',
        properties: { risk: { type: 'string', enum: ['low', 'high'] }, loan: { type: 'integer' } },
        required: ['risk', 'loan'],
      },
    },
  })
})
afterAll(async () => {
  await app.close()
})

describe('createAgentHost: the tools a card that canDelegate is granted', () => {
  it('lets an agent whose card lists no tools call ask_peer (the grant goes on a copy of its card)', async () => {
    const messages = await converse(
      app,
      'lead',
      '[[tool:ask_peer {"agentId":"clerk","content":"file the report"}]] [[answer:asked the clerk]]',
    )
    expect(messages.map((message) => `${message.type}:${message.to.agentId}`)).toEqual([
      'direct:lead',
      'direct:clerk',
      'reply:lead',
      'reply:person',
    ])
    expect(messages.at(-1)?.content).toBe('asked the clerk')
    // The stored card is left as it was: the grant is the host's, per run.
    expect((await app.baton.repositories.agents.findById('lead'))?.tools).toEqual([])
  })

  it('lets it call start_subagent, and the sub-agent spends on its own wallet', async () => {
    const clerk = await app.baton.repositories.agents.findById('clerk')
    const before = (await spendOf(app, clerk!.wallet)).calls
    const messages = await converse(
      app,
      'lead',
      '[[tool:start_subagent {"agentId":"clerk","task":"count the files"}]] [[answer:sub-agent done]]',
    )
    expect(messages.at(-1)?.content).toBe('sub-agent done')
    expect((await spendOf(app, clerk!.wallet)).calls).toBeGreaterThan(before)
  })
})

describe('createAgentHost: a card with an outputSchema', () => {
  it('answers a bus message with the JSON its model was asked for', async () => {
    const messages = await converse(app, 'assessor', 'Assess loan 42')
    const answer = JSON.parse(messages.at(-1)!.content)
    expect(['low', 'high']).toContain(answer.risk)
    expect(Number.isInteger(answer.loan)).toBe(true)
  })

  it('answers an A2A message with that JSON too', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/a2a/assessor',
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: 'm-assess-1',
            role: 'user',
            parts: [{ kind: 'text', text: 'Assess loan 7' }],
          },
        },
      },
    })
    expect(response.statusCode).toBe(200)
    const task = response.json().result as {
      status: { state: string }
      artifacts: { parts: { kind: string; text: string }[] }[]
    }
    expect(task.status.state).toBe('completed')
    const answer = JSON.parse(task.artifacts[0]!.parts[0]!.text)
    expect(['low', 'high']).toContain(answer.risk)
  })
})
