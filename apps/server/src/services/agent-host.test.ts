import { signAgentRegistration } from '@baton/core'
import { type EchoAgent, startEchoAgent } from '@baton/testing/a2a'
import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newAgentAccounts } from '../__fixtures__/signed-agents'
import { createTestApp } from '../__fixtures__/test-app'
import { testRegistryId } from '../settings'

type Envelope = { id: string; type: string; content: string; correlationId: string; hop: number }

let app: FastifyInstance
let echo: EchoAgent
beforeAll(async () => {
  // Its answers come in appended pieces, 60 ms apart (the express mount's card streams).
  echo = await startEchoAgent({
    mount: 'express',
    slowWord: 'slow',
    pieces: { size: 6, delayMs: 60 },
  })
  // The echo agent listens on 127.0.0.1: a private endpoint, allowed here on purpose.
  app = await createTestApp({ allowPrivateEndpoints: true })
})
afterAll(async () => {
  await app.close()
  await echo.close()
})

describe('createAgentHost', () => {
  it('sends a bus message for an agent with an endpoint to it over A2A, charged as one call', async () => {
    const accounts = newAgentAccounts()
    const agent = { ...accounts.agent, endpoint: echo.cardUrl }
    const registered = await app.inject({
      method: 'POST',
      url: '/api/v1/agents',
      payload: await signAgentRegistration(agent, { ...accounts, registry: testRegistryId }),
    })
    expect(registered.statusCode).toBe(201)

    // Someone watches the conversations: the remote reply's pieces come as deltas.
    const deltas: { correlationId: string; text: string }[] = []
    const off = app.baton.agentHost.onReplyDelta?.((delta) => deltas.push(delta))
    const sent = await app.inject({
      method: 'POST',
      url: '/api/v1/messages',
      payload: { from: { agentId: 'person' }, to: { agentId: agent.id }, content: 'hello remote' },
    })
    expect(sent.statusCode).toBe(202)
    const { envelope } = sent.json() as { envelope: Envelope }
    const reply = await waitFor(async () => {
      const read = await app.inject({
        method: 'GET',
        url: `/api/v1/conversations/${envelope.correlationId}`,
      })
      return (read.json().messages as Envelope[]).find((message) => message.type === 'reply')
    })
    expect(reply).toMatchObject({
      content: 'echo: hello remote',
      correlationId: envelope.correlationId,
      hop: 1,
    })
    expect(echo.received).toContain('hello remote')
    off?.()
    const mine = deltas.filter((delta) => delta.correlationId === envelope.correlationId)
    expect(mine.length).toBeGreaterThan(1)
    expect(mine.map((delta) => delta.text).join('')).toBe('echo: hello remote')
    const spend = await waitFor(async () => {
      const rows = (await app.inject({ method: 'GET', url: '/api/v1/spend?by=wallet' })).json()
        .spend as { wallet: string; calls: number }[]
      return rows.find((row) => row.wallet === agent.wallet)
    })
    expect(spend.calls).toBe(1)
  })
})
