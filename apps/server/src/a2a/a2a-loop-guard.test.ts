import { createMessageBus, type MessageBus } from '@baton/comm'
import type { Agent } from '@baton/core'
import { sendA2AMessage } from '@baton/mal'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTestServices,
  hostedAgent,
  type TestServices,
} from './__fixtures__/a2a-test-services'
import { listenA2AApp } from './__fixtures__/listen-a2a-app'
import { a2aInbox, type HostedAgentRun } from './a2a-services'

let services: TestServices
let bus: MessageBus
let app: FastifyInstance
let base = ''
const runs: HostedAgentRun[] = []
const agents = [
  hostedAgent({ id: 'ping', name: 'Ping' }),
  hostedAgent({ id: 'pong', name: 'Pong', wallet: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' }),
]
const cardOf = (agentId: string) => `${base}/a2a/${agentId}/.well-known/agent-card.json`

beforeAll(async () => {
  services = await createTestServices({ agents })
  bus = createMessageBus({ loopGuard: { maxHops: 3 } })
  // Each agent passes what it is told to the other one, over A2A, in the same context: an
  // agent host whose peers are reached at their endpoints.
  const forwardToPeer = async (input: HostedAgentRun) => {
    runs.push(input)
    const self = input.agent as Agent
    const peer = self.id === 'ping' ? 'pong' : 'ping'
    const reply = await sendA2AMessage({
      endpoint: cardOf(peer),
      text: `${self.name} passes on: ${input.input}`,
      ...(input.correlationId ? { contextId: input.correlationId } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    })
    return {
      text: reply.text,
      usage: { calls: 1, tokens: 0, costUsd: 0 },
      correlationId: input.correlationId ?? '',
      hop: input.hop ?? 0,
    }
  }
  ;({ app, base } = await listenA2AApp({ services, bus, runHostedAgent: forwardToPeer }))
})
afterAll(async () => {
  await app.close()
  await bus.close()
  await services.close()
})

describe('the loop guard across A2A', () => {
  it('stops two hosted agents that forward to each other at maxHops, with one escalation', async () => {
    const failure = await sendA2AMessage({ endpoint: cardOf('ping'), text: 'start' }).then(
      () => undefined,
      (error: Error) => error,
    )
    expect(failure?.message).toMatch(/LOOP_GUARD/)
    const escalations = bus.escalations()
    expect(escalations).toHaveLength(1)
    const correlationId = runs[0]?.correlationId
    expect(escalations[0]).toMatchObject({ correlationId })
    // One conversation, one hop further at each agent, up to the limit.
    expect(runs.map(({ correlationId: id }) => id)).toEqual(runs.map(() => correlationId))
    expect(runs.map(({ hop }) => hop)).toEqual([0, 1, 2, 3])
    expect(bus.history(correlationId ?? '').map((message) => message.to.agentId)).toEqual([
      a2aInbox('ping'),
      a2aInbox('pong'),
      a2aInbox('ping'),
      a2aInbox('pong'),
    ])
  })
})
