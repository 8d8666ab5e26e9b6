import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTestServices,
  hostedAgent,
  type TestServices,
} from './__fixtures__/a2a-test-services'
import { createA2APlugin } from './a2a-plugin'
import { askRemoteAgent } from './ask-remote-agent'

let services: TestServices
let app: FastifyInstance
let base = ''
beforeAll(async () => {
  services = await createTestServices()
  app = Fastify()
  await app.register(createA2APlugin(services))
  base = await app.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(async () => {
  await app.close()
  await services.close()
})

describe('askRemoteAgent', () => {
  it('carries the conversation and its next hop to a Baton server on the other side', async () => {
    const peer = hostedAgent({ endpoint: `${base}/a2a/analyst/.well-known/agent-card.json` })
    const reply = await askRemoteAgent({
      agent: peer,
      content: 'Check the refunds',
      correlationId: 'corr-from-elsewhere',
      hop: 2,
      from: 'orchestrator',
    })
    expect(reply.text).toBe('Incident Analyst says: Check the refunds')
    expect(services.calls.at(-1)).toMatchObject({
      correlationId: 'corr-from-elsewhere',
      hop: 3,
      from: 'orchestrator',
    })
  })

  it('refuses an agent without an endpoint with a ValidationError naming it', async () => {
    await expect(
      askRemoteAgent({ agent: hostedAgent(), content: 'x', correlationId: 'c', hop: 0, from: 'a' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/endpoint/),
    })
  })
})
