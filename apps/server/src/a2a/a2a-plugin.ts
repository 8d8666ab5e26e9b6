import { DefaultExecutionEventBusManager, type User } from '@a2a-js/sdk/server'
import type { Agent } from '@baton/core'
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { RedisOptions } from 'ioredis'
import { bearerTokenOf, sameSecret } from '../auth/bearer-token'
import { hasScope, type Principal } from '../auth/principal'
import { logRedisOutages } from '../health/log-redis-outages'
import { listeningAddressOf, serverBaseUrl } from '../http/public-url'
import { responseSerializer } from '../http/response-serializer'
import { A2AAgentCard } from '../routes/responses/bus'
import { ErrorResponse } from '../routes/schemas'
import { shutdownDrainMs } from '../services/create-services'
import { type A2AServices, a2aServicesFrom, type ServerServicesForA2A } from './a2a-services'
import { createA2ATaskStore } from './a2a-task-store'
import { createRedisTaskBuses, type RedisTaskBuses } from './create-redis-task-buses'
import { handleJsonRpc, sendJsonRpcError } from './handle-json-rpc'
import { hostedAgentCard, toSdkAgentCard } from './hosted-agent-card'
import { createHostedAgentExecutor, HOSTED_AGENT_STATE_KEY } from './hosted-agent-executor'
import { HostedRequestHandler } from './hosted-request-handler'
import { createRedisStartClaims } from './redis-start-claims'
import { TaskStarts } from './task-starts'
import { watchTasksOfGoneProcesses } from './tasks-left-in-progress'

/** Whoever holds the API token (or anyone, when the server has none): one task owner for all. */
const BATON_USER: User = { isAuthenticated: true, userName: 'baton' }

/**
 * The task owner of a request: each API key its own (ListTasks and GetTask show a caller its
 * tasks only); the admin token and the anonymous caller of an open server stay `baton`.
 */
function userOf(request: FastifyRequest): User {
  const principal = request.principal as Principal | null | undefined
  return principal?.kind === 'key' ? { isAuthenticated: true, userName: principal.id } : BATON_USER
}

/** Without the server's auth plugin (tests of this plugin alone), the token decides. */
function mayRun(request: FastifyRequest, apiToken: string | undefined): boolean {
  const principal = request.principal as Principal | null | undefined
  if (principal) return hasScope(principal, 'run')
  return apiToken === undefined || hasToken(request, apiToken)
}

/**
 * How long the cancel of a task failed for its gone process is kept: a process stalled for up
 * to this long stops its agent when it comes back; one back later still has its answer refused.
 */
const STALLED_CANCEL_KEEP_MS = 60 * 60 * 1000

/** The OpenAPI tag and summary of a route (the JSON-RPC body is the SDK's to check). */
const describe = (summary: string) => ({ tags: ['a2a'], summary })

/** Routes registered by such a plugin belong to the app that registers it, not a child of it. */
const shared = <T extends FastifyPluginAsync>(plugin: T): T =>
  Object.assign(plugin, { [Symbol.for('skip-override')]: true })

/**
 * The A2A protocol for the agents this server hosts, on the given services: each agent's
 * card at `GET /a2a/:agentId/.well-known/agent-card.json`, the root agent's (BATON_A2A_ROOT_AGENT,
 * else the orchestrator) at `GET /.well-known/agent-card.json`, and the JSON-RPC binding (v1.0 and v0.3 method names,
 * SSE for streaming) at `POST /a2a/:agentId`, run by the SDK's `DefaultRequestHandler` (as
 * `HostedRequestHandler`) with tasks in the database.
 *
 * @example
 * await app.register(createA2APlugin({ apiToken, db, findAgent, findOrchestrator, runHostedAgent, hops }))
 */
export function createA2APlugin(services: A2AServices): FastifyPluginAsync {
  const taskStore = createA2ATaskStore(services.db, services.writer, {
    alone: !services.redisUrl,
  })
  // Which task each message started: a message sent again is answered with it.
  const starts = new TaskStarts(taskStore)
  const bearer = services.apiToken !== undefined
  // Never the request's Host header: a card must not advertise whatever host a caller names.
  const baseUrl = (request: FastifyRequest) =>
    serverBaseUrl({
      publicUrl: services.publicUrl,
      listening: listeningAddressOf(
        request.server.server,
        services.listening ?? { address: '127.0.0.1', port: 80 },
      ),
    })

  return shared(async (app: FastifyInstance) => {
    // One for the server: a cancel or a resubscribe must find the bus of a task started by
    // an earlier request — on any process of the deployment when there is a Redis.
    const shared = services.redisUrl
      ? await connectTaskBuses(services.redisUrl, taskStore, starts, app, services)
      : undefined
    const buses = shared ?? new DefaultExecutionEventBusManager()
    const executor = createHostedAgentExecutor({
      ...services,
      agentOf: (context) => context.context.state.get(HOSTED_AGENT_STATE_KEY) as Agent,
      expectNewTask: (taskId, context) => {
        taskStore.expectNew(taskId, context)
        starts.began(context, taskId)
      },
      ...(shared ? { cancelElsewhere: (taskId: string) => shared.requestCancel(taskId) } : {}),
    })
    shared?.onCancelRequest((taskId, bus) => void executor.cancelTask(taskId, bus))
    // A stop waits for the tasks executing here, then for the saves that settle them, before
    // the database closes (the services' close is an onClose hook: after every preClose). A
    // task answered at once, or whose client went away, holds no request open meanwhile. The
    // wait starts as the server begins to stop, beside the runs' drain, not after it.
    let drained: Promise<void> | undefined
    const drain = () => {
      drained ??= executor
        .drain(services.stopWithinMs ?? shutdownDrainMs)
        .then(() => taskStore.settled(5_000))
        .then(() => {})
      return drained
    }
    services.closing?.addEventListener('abort', () => void drain(), { once: true })
    app.addHook('preClose', drain)

    // The cards' response schema is zod, which the server's serializer reads; a bare fastify
    // (this plugin's own tests) has no serializer for it, so there the cards are written as JSON.
    const cardSerializer = app.serializerCompiler
      ? {}
      : { serializerCompiler: responseSerializer({ check: false }) }

    app.get(
      '/.well-known/agent-card.json',
      {
        config: { access: 'public' },
        ...cardSerializer,
        schema: {
          ...describe(
            "The root agent's A2A agent card (BATON_A2A_ROOT_AGENT, else the orchestrator)",
          ),
          response: { 200: A2AAgentCard, 404: ErrorResponse },
        },
      },
      async (request, reply) => {
        const root = await services.findOrchestrator()
        if (!root) {
          return reply.status(404).send({
            error: {
              code: 'NOT_FOUND',
              message:
                'This server names no root agent: BATON_A2A_ROOT_AGENT names none it hosts, or it hosts no orchestrator.',
              details: {},
            },
          })
        }
        return hostedAgentCard(root, { baseUrl: baseUrl(request), bearer })
      },
    )

    app.get<{ Params: { agentId: string } }>(
      '/a2a/:agentId/.well-known/agent-card.json',
      {
        config: { access: 'public' },
        ...cardSerializer,
        schema: {
          ...describe("A hosted agent's A2A agent card"),
          response: { 200: A2AAgentCard, 404: ErrorResponse },
        },
      },
      async (request, reply) => {
        const agent = await services.findAgent(request.params.agentId)
        if (!agent) {
          return reply.status(404).send({
            error: {
              code: 'NOT_FOUND',
              message: `No hosted agent "${request.params.agentId}".`,
              details: { agentId: request.params.agentId },
            },
          })
        }
        return hostedAgentCard(agent, { baseUrl: baseUrl(request), bearer })
      },
    )

    // Its own context: the endpoint reads every body as text, so that malformed JSON and
    // other media types get the JSON-RPC errors the binding defines instead of fastify's.
    await app.register(async (endpoint) => {
      endpoint.removeAllContentTypeParsers()
      endpoint.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) =>
        done(null, body),
      )
      endpoint.post<{ Params: { agentId: string } }>(
        '/a2a/:agentId',
        {
          // The principal is checked below, so a refusal is a JSON-RPC error.
          config: { access: 'public', ownErrorShape: true },
          schema: describe("A hosted agent's A2A JSON-RPC endpoint (v1.0 and v0.3 methods, SSE)"),
        },
        async (request, reply) => {
          if (!mayRun(request, services.apiToken)) {
            reply.header('www-authenticate', 'Bearer')
            return sendJsonRpcError(
              reply,
              null,
              { code: -32600, message: 'This endpoint requires Authorization: Bearer <token>.' },
              401,
            )
          }
          // A page elsewhere can POST without CORS only as text/plain, a form, or no type at all.
          const mediaType = request.headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase()
          if (mediaType !== 'application/json') {
            return sendJsonRpcError(
              reply,
              null,
              {
                code: -32005,
                message: mediaType
                  ? `Unsupported Content-Type "${mediaType}"; expected application/json.`
                  : 'A JSON-RPC request needs Content-Type: application/json.',
              },
              415,
            )
          }
          const agent = await services.findAgent(request.params.agentId)
          if (!agent) {
            return sendJsonRpcError(reply, null, {
              code: -32600,
              message: `No hosted agent "${request.params.agentId}" at this endpoint.`,
              data: { reason: 'UNKNOWN_AGENT', agentId: request.params.agentId },
            })
          }
          const card = toSdkAgentCard(hostedAgentCard(agent, { baseUrl: baseUrl(request), bearer }))
          return handleJsonRpc({
            request,
            reply,
            body: typeof request.body === 'string' ? request.body : '',
            requestHandler: new HostedRequestHandler(card, taskStore, executor, buses, starts),
            user: userOf(request),
            tenant: agent.id,
            // Not the id: a revoked agent's id registered again must not find its tasks.
            scope: `${agent.id}#${await services.registrationOf(agent)}`,
            prepare: (context) => context.state.set(HOSTED_AGENT_STATE_KEY, agent),
          })
        },
      )
    })
  })
}

/**
 * The A2A endpoints on the services the app is decorated with (`app.baton`).
 *
 * @example
 * await app.register(a2aPlugin)
 */
export const a2aPlugin: FastifyPluginAsync = shared(async (app) => {
  await app.register(
    createA2APlugin(a2aServicesFrom(app.getDecorator<ServerServicesForA2A>('baton'))),
  )
})

/**
 * Task buses over the deployment's Redis, and the messages' start claims (`starts` shares
 * them), closed with the app.
 */
async function connectTaskBuses(
  url: string,
  taskStore: ReturnType<typeof createA2ATaskStore>,
  starts: TaskStarts,
  app: FastifyInstance,
  services: A2AServices,
): Promise<RedisTaskBuses> {
  const leaseMs = services.taskLeaseMs ?? 15_000
  // ioredis is loaded only by a deployment that has a Redis.
  const { Redis } = await import('ioredis')
  const connect = async (options: RedisOptions = { maxRetriesPerRequest: null }) => {
    const client = new Redis(url, { ...options, lazyConnect: true })
    logRedisOutages(client, { logger: app.log, what: 'A2A task buses', url })
    await client.connect()
    return client
  }
  const publisher = await connect()
  const subscriber = await connect()
  // On the request path: while Redis is down a claim fails at once, and one it does not
  // answer within the bound fails then; neither is made later.
  const claimer = await connect({
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: services.redisTimeoutMs ?? 5_000,
  })
  // A process that claimed a message and died before storing its task holds it one lease.
  starts.share(createRedisStartClaims({ client: claimer, holdMs: leaseMs }), (error) =>
    app.log.warn(
      { err: error },
      'A2A message starts: Redis did not answer; each is started as on a process alone until it does',
    ),
  )
  const buses = createRedisTaskBuses({
    publisher,
    subscriber,
    // The SDK always passes the caller's context (tasks are scoped by tenant and owner).
    loadTask: async (taskId, context) => (context ? taskStore.load(taskId, context) : undefined),
    leaseMs,
    onError: (error) => app.log.warn({ err: error }, 'A2A task buses: Redis error'),
  })
  // A process killed leaves its tasks in progress, marked by no one: some process fails them.
  const gone = watchTasksOfGoneProcesses({
    db: services.db,
    leaseMs,
    executedSomewhere: (taskIds) => buses.executedSomewhere(taskIds),
    onFailed: (taskIds) => {
      app.log.warn({ tasks: taskIds }, 'A2A tasks of a process that is gone failed')
      // Gone may be only stalled (a long pause, a frozen machine): should it come back, its
      // agent stops at its next mark rather than spend on a task whose end is stored.
      for (const taskId of taskIds) buses.requestCancel(taskId, { keepMs: STALLED_CANCEL_KEEP_MS })
    },
    onError: (error) => app.log.warn({ err: error }, 'A2A tasks of gone processes: look failed'),
  })
  app.addHook('onClose', async () => {
    await gone.stop()
    await buses.close()
    publisher.disconnect()
    subscriber.disconnect()
    claimer.disconnect()
  })
  return buses
}

function hasToken(request: FastifyRequest, token: string): boolean {
  const given = bearerTokenOf(request.headers.authorization)
  return given !== undefined && sameSecret(given, token)
}
