import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  AgentCard,
  formatSSEErrorEvent,
  formatSSEEvent,
  type Message,
  TaskState,
} from '@a2a-js/sdk'
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server'
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  validateVersion,
} from '@a2a-js/sdk/server'

export type SdkEchoAgent = {
  /** Where its card is served. */
  cardUrl: string
  /** The JSON-RPC methods it was called with, in order. */
  methods: string[]
  /** Ids of the tasks a client cancelled. */
  cancelled: string[]
  close(): Promise<void>
}

export type SdkEchoAgentOptions = {
  streaming?: boolean
  /** How long each task works before it answers (default 0). */
  workMs?: number
}

/**
 * A reference A2A agent made only of the SDK's own server pieces (`DefaultRequestHandler`,
 * its JSON-RPC transport handlers, an in-memory task store) on plain `node:http`: it
 * answers every message with a task whose artifact is `echo: <text>`.
 */
export async function startSdkEchoAgent(options: SdkEchoAgentOptions = {}): Promise<SdkEchoAgent> {
  const methods: string[] = []
  const cancelled: string[] = []
  const running = new Map<string, AbortController>()
  const executor: AgentExecutor = {
    async execute(context, bus) {
      const { taskId, contextId } = context
      const stop = new AbortController()
      running.set(taskId, stop)
      const status = (state: TaskState, message?: Message) =>
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message, timestamp: new Date().toISOString() },
          metadata: undefined,
        })
      if (!context.task) {
        bus.publish(
          AgentEvent.task({
            id: taskId,
            contextId,
            status: {
              state: TaskState.TASK_STATE_SUBMITTED,
              message: undefined,
              timestamp: undefined,
            },
            artifacts: [],
            history: [context.userMessage],
            metadata: undefined,
          }),
        )
      }
      bus.publish(status(TaskState.TASK_STATE_WORKING))
      try {
        await sleep(options.workMs ?? 0, undefined, { signal: stop.signal })
      } catch {
        return // cancelTask has published the end of this task
      } finally {
        running.delete(taskId)
      }
      const text = context.userMessage.parts
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('')
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: 'answer',
            name: 'answer',
            description: '',
            parts: [
              {
                content: { $case: 'text', value: `echo: ${text}` },
                metadata: undefined,
                filename: '',
                mediaType: 'text/plain',
              },
            ],
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
  const card = () =>
    AgentCard.fromJSON({
      name: 'SDK echo agent',
      description: 'Echoes what it is sent',
      version: '1.0.0',
      supportedInterfaces: [
        { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
      capabilities: { streaming: options.streaming ?? true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['echo'] }],
    })
  let handler: DefaultRequestHandler | undefined
  const requestHandler = () => {
    handler ??= new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor)
    return handler
  }

  const server: Server = createServer((request, response) => {
    void (async () => {
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify(AgentCard.toJSON(card())))
        return
      }
      const body = JSON.parse(await readBody(request)) as { method: string; id: unknown }
      methods.push(body.method)
      const version = request.headers['a2a-version']
      const requestedVersion = typeof version === 'string' ? version : undefined
      const context = defaultServerCallContextBuilder({
        extensions: undefined,
        user: new UnauthenticatedUser(),
        headers: request.headers,
        requestedVersion,
      })
      validateVersion(context.requestedVersion, card(), 'JSONRPC')
      const transport =
        (requestedVersion ?? '0.3') === '0.3'
          ? new LegacyJsonRpcTransportHandler(requestHandler())
          : new JsonRpcTransportHandler(requestHandler())
      const answer = await transport.handle(body, context)
      if (Symbol.asyncIterator in answer) {
        response.writeHead(200, { 'content-type': 'text/event-stream' })
        try {
          for await (const event of answer) response.write(formatSSEEvent(event))
        } catch (error) {
          response.write(formatSSEErrorEvent({ jsonrpc: '2.0', id: body.id, error: String(error) }))
        }
        response.end()
        return
      }
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify(answer))
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  url = `http://127.0.0.1:${port}/rpc`
  return {
    cardUrl: `http://127.0.0.1:${port}/.well-known/agent-card.json`,
    methods,
    cancelled,
    close: async () => {
      for (const stop of running.values()) stop.abort()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of request) text += chunk
  return text
}
