import { SendMessageRequest, type Task, TaskState } from '@a2a-js/sdk'
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import { createMessageBus, type MessageBus } from '@baton/comm'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEndpointFetch } from '../endpoints/create-endpoint-fetch'
import {
  createTestServices,
  hostedAgent,
  type TestServices,
} from './__fixtures__/a2a-test-services'
import { listenA2AApp } from './__fixtures__/listen-a2a-app'
import { askRemoteAgent } from './ask-remote-agent'

let services: TestServices
let bus: MessageBus
let app: FastifyInstance
let base = ''
beforeAll(async () => {
  services = await createTestServices()
  bus = createMessageBus({ loopGuard: { maxHops: 3 } })
  ;({ app, base } = await listenA2AApp({ services, bus }))
})
afterAll(async () => {
  await app.close()
  await bus.close()
  await services.close()
})

describe('a client talking to one agent over A2A', () => {
  it('is never stopped by the loop guard, however many turns one context has', async () => {
    const client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory()],
    }).createFromUrl(`${base}/a2a/analyst/.well-known/agent-card.json`, '')
    const turn = (text: string, contextId?: string) =>
      client.sendMessage(
        SendMessageRequest.fromJSON({
          message: {
            messageId: crypto.randomUUID(),
            role: 'ROLE_USER',
            parts: [{ text }],
            ...(contextId ? { contextId } : {}),
          },
        }),
      ) as Promise<Task>
    const first = await turn('turn 0')
    const states = [first.status?.state]
    // maxHops is 3: the 5th turn was rejected with LOOP_GUARD_ESCALATED before.
    for (let index = 1; index < 12; index++) {
      const task = await turn(`turn ${index}`, first.contextId)
      expect(task.contextId).toBe(first.contextId)
      states.push(task.status?.state)
    }
    expect(states).toEqual(states.map(() => TaskState.TASK_STATE_COMPLETED))
    expect(bus.escalations()).toEqual([])
    // Each turn a chain of its own at hop 0.
    const turns = services.calls.slice(-12)
    expect(turns.map(({ hop }) => hop)).toEqual(turns.map(() => 0))
    expect(new Set(turns.map(({ correlationId }) => correlationId)).size).toBe(12)
    expect(turns[0]?.correlationId).toBe(first.contextId)
  })

  it('still counts the hops a Baton agent passes on, and stops them past maxHops', async () => {
    const peer = hostedAgent({ endpoint: `${base}/a2a/analyst/.well-known/agent-card.json` })
    const ask = (hop: number) =>
      askRemoteAgent({
        agent: peer,
        content: `hop ${hop + 1}`,
        correlationId: 'chain-x',
        hop,
        from: 'lead',
        // The peer listens on loopback, which only a closed network allows.
        fetch: createEndpointFetch({ allowPrivate: true }),
      })
    expect((await ask(0)).text).toMatch(/hop 1/)
    expect((await ask(1)).text).toMatch(/hop 2/)
    await expect(ask(3)).rejects.toThrow(/LOOP_GUARD/)
    expect(bus.escalations().map(({ correlationId }) => correlationId)).toEqual(['chain-x'])
  })
})
