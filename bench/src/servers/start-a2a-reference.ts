import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { AgentCard, type Message, Role } from '@a2a-js/sdk'
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server'
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express'
import express from 'express'
import type { StartedServer } from './types'

/** Answers every message with its own text, at once: the least an A2A agent can do. */
const echoExecutor: AgentExecutor = {
  async execute(context, bus) {
    bus.publish(
      AgentEvent.message({
        messageId: randomUUID(),
        contextId: context.contextId,
        taskId: '',
        role: Role.ROLE_AGENT,
        parts: context.userMessage.parts,
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      } satisfies Message),
    )
    bus.finished()
  },
  async cancelTask() {},
}

/**
 * The A2A SDK's own reference server: Express, its `jsonRpcHandler` and `DefaultRequestHandler`
 * with an in-memory task store, and an echo executor.
 *
 * @example
 * const server = await startA2AReference() // POST {server.url}/a2a, JSON-RPC SendMessage
 */
export async function startA2AReference(): Promise<StartedServer> {
  const app = express()
  const server = app.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  const { port } = server.address() as AddressInfo
  const url = `http://127.0.0.1:${port}`
  const card = AgentCard.fromJSON({
    name: 'Echo',
    description: 'Answers with what it was sent.',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes.', tags: ['echo'] }],
  })
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), echoExecutor)
  app.use(
    '/a2a',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  )
  return {
    url,
    paths: { a2a: '/a2a' },
    model: 'echo executor',
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
