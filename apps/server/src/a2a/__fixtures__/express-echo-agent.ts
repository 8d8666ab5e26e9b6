import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { AgentCard, type Part, TaskState } from '@a2a-js/sdk'
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server'
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express'
import express from 'express'

export type ExpressEchoAgent = {
  cardUrl: string
  /** The texts it was sent. */
  received: string[]
  /** Ids of the tasks a client cancelled. */
  cancelled: string[]
  close(): Promise<void>
}

const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
})

/**
 * An A2A agent that is not Baton: the SDK's `DefaultRequestHandler` with an echo executor,
 * mounted with the SDK's own Express handlers. A message containing `slow` works until it is
 * cancelled.
 */
export async function startExpressEchoAgent(): Promise<ExpressEchoAgent> {
  const received: string[] = []
  const cancelled: string[] = []
  const running = new Map<string, AbortController>()
  const executor: AgentExecutor = {
    async execute(context, bus) {
      const { taskId, contextId } = context
      const said = context.userMessage.parts
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('')
      received.push(said)
      const status = (state: TaskState) =>
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        })
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: {
            state: TaskState.TASK_STATE_SUBMITTED,
            message: undefined,
            timestamp: new Date().toISOString(),
          },
          artifacts: [],
          history: [context.userMessage],
          metadata: undefined,
        }),
      )
      bus.publish(status(TaskState.TASK_STATE_WORKING))
      const stop = new AbortController()
      running.set(taskId, stop)
      try {
        if (said.includes('slow')) await sleep(120_000, undefined, { signal: stop.signal })
      } catch {
        return // cancelTask ended the task
      } finally {
        running.delete(taskId)
      }
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: 'echo',
            name: 'echo',
            description: '',
            parts: [text(`echo: ${said}`)],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      )
      bus.publish(status(TaskState.TASK_STATE_COMPLETED))
      bus.finished()
    },
    async cancelTask(taskId, bus) {
      cancelled.push(taskId)
      running.get(taskId)?.abort()
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: '',
          status: {
            state: TaskState.TASK_STATE_CANCELED,
            message: undefined,
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      )
      bus.finished()
    },
  }

  let url = ''
  const card = async () =>
    AgentCard.fromJSON({
      name: 'Express echo agent',
      description: 'Echoes what it is sent',
      version: '1.0.0',
      supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['echo'] }],
    })
  const requestHandler = new DefaultRequestHandler(await card(), new InMemoryTaskStore(), executor)
  const app = express()
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: card }))
  app.use('/rpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }))
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening))
  })
  const { port } = server.address() as AddressInfo
  url = `http://127.0.0.1:${port}/rpc`
  return {
    cardUrl: `http://127.0.0.1:${port}/.well-known/agent-card.json`,
    received,
    cancelled,
    close: async () => {
      for (const stop of running.values()) stop.abort()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
