import {
  A2A_VERSION_HEADER,
  Extensions,
  formatSSEErrorEvent,
  formatSSEEvent,
  HTTP_EXTENSION_HEADER,
  SSE_HEADERS,
} from '@a2a-js/sdk'
import {
  A2A_LEGACY_PROTOCOL_VERSION,
  LEGACY_HTTP_EXTENSION_HEADER,
  LEGACY_METHOD_TASKS_RESUBSCRIBE,
} from '@a2a-js/sdk/compat/v0_3'
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server'
import { A2A_ERROR_CODE } from '@a2a-js/sdk/errors'
import {
  type A2ARequestHandler,
  defaultServerCallContextBuilder,
  JsonRpcTransportHandler,
  type ServerCallContext,
  type User,
  validateVersion,
} from '@a2a-js/sdk/server'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { invalidParams } from './invalid-params'
import { withTypedFaults } from './typed-faults'

export type JsonRpcError = { code: number; message: string; data?: unknown }

/**
 * Answers a JSON-RPC error the way the binding says: HTTP 200, the error in the body, and
 * the request's id (`null` only when it could not be read).
 *
 * @example
 * return sendJsonRpcError(reply, null, { code: -32700, message: 'Invalid JSON payload.' })
 */
export function sendJsonRpcError(
  reply: FastifyReply,
  id: unknown,
  error: JsonRpcError,
  status = 200,
): FastifyReply {
  return reply.status(status).type('application/json').send({ jsonrpc: '2.0', id, error })
}

export type HandleJsonRpcOptions = {
  request: FastifyRequest
  reply: FastifyReply
  /** The request body, unparsed (so malformed JSON gets `-32700`, not fastify's 400). */
  body: string
  requestHandler: A2ARequestHandler
  user: User
  /** The tenant a request may name in its params (the hosted agent's id). */
  tenant: string
  /**
   * Every task of this endpoint is kept under this key (the hosted agent's registration):
   * the task store's tenant.
   */
  scope: string
  /** Puts what the executor needs into the call context. */
  prepare?: (context: ServerCallContext) => void
}

/** Where the endpoint tells the executor whether the client asked for a stream. */
export const STREAMING_STATE_KEY = 'baton.streaming'

/**
 * Where the endpoint tells the executor that the message names neither a context nor a task:
 * the SDK makes a new context id up for it, which no stored task can have.
 */
export const NEW_CONTEXT_STATE_KEY = 'baton.new-context'

/**
 * Where the endpoint tells the task store that the client hears of the task only once it has
 * settled (a blocking `SendMessage`, no stream): nothing of it is acknowledged before then.
 */
export const ANSWERS_WHEN_SETTLED_STATE_KEY = 'baton.answers-when-settled'

// v1.0 and v0.3 names of the method that answers once, with the task as it ends.
const SEND_METHODS = new Set(['SendMessage', 'message/send'])

// v1.0 and v0.3 names of the method that answers with a stream of a new task's events.
const STREAMING_METHODS = new Set(['SendStreamingMessage', 'message/stream'])

/**
 * The A2A JSON-RPC binding on a fastify route, from the SDK's framework-independent
 * transport handlers (the same steps as its Express `jsonRpcHandler`): v1.0 method names
 * when the client sends `A2A-Version: 1.0`, v0.3 ones (`message/send`, `tasks/get`, ...)
 * otherwise; streaming methods answer with server-sent events.
 *
 * @example
 * app.post('/a2a/:agentId', (request, reply) => handleJsonRpc({ request, reply, body, requestHandler, user, tenant, scope }))
 */
export async function handleJsonRpc(
  options: HandleJsonRpcOptions,
): Promise<FastifyReply | undefined> {
  const { request, reply } = options
  let body: { id?: unknown; method?: unknown; params?: { tenant?: unknown } }
  try {
    body = JSON.parse(options.body)
  } catch {
    return sendJsonRpcError(reply, null, {
      code: A2A_ERROR_CODE.PARSE_ERROR,
      message: 'Invalid JSON payload.',
    })
  }
  // JSON-RPC 2.0: the request's id goes back with its error whenever it can be read.
  const id = readableId(body)
  const invalid = invalidEnvelope(body)
  if (invalid) {
    return sendJsonRpcError(reply, id, { code: A2A_ERROR_CODE.INVALID_REQUEST, message: invalid })
  }
  const header = (name: string) => {
    const value = request.headers[name.toLowerCase()]
    return Array.isArray(value) ? value[0] : value
  }
  const requestedVersion = header(A2A_VERSION_HEADER) || undefined
  const legacy = (requestedVersion ?? A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION
  const mapError = legacy
    ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
    : JsonRpcTransportHandler.mapToJSONRPCError
  const paramsTenant = body.params?.tenant
  if (paramsTenant !== undefined && paramsTenant !== '' && paramsTenant !== options.tenant) {
    return sendJsonRpcError(reply, id, {
      code: A2A_ERROR_CODE.INVALID_PARAMS,
      message: `This endpoint serves tenant "${options.tenant}" only.`,
    })
  }
  if (paramsTenant !== undefined) delete body.params?.tenant
  const badParams = invalidParams(
    body.method as string,
    body.params as Record<string, unknown> | undefined,
    legacy ? 'v0.3' : 'v1.0',
  )
  if (badParams) {
    return sendJsonRpcError(reply, id, {
      code: A2A_ERROR_CODE.INVALID_PARAMS,
      message: badParams.message,
      data: { field: badParams.field },
    })
  }

  try {
    const context = defaultServerCallContextBuilder({
      extensions: Extensions.parseServiceParameter(
        legacy
          ? (header(LEGACY_HTTP_EXTENSION_HEADER) ?? header(HTTP_EXTENSION_HEADER))
          : header(HTTP_EXTENSION_HEADER),
      ),
      user: options.user,
      headers: request.headers,
      ...(requestedVersion ? { requestedVersion } : {}),
      tenant: options.scope,
    })
    // The executor streams the answer's text only to a client that asked for a stream.
    context.state.set(STREAMING_STATE_KEY, STREAMING_METHODS.has(body.method as string))
    context.state.set(NEW_CONTEXT_STATE_KEY, startsNewContext(body.params))
    context.state.set(
      ANSWERS_WHEN_SETTLED_STATE_KEY,
      SEND_METHODS.has(body.method as string) && blocks(body.params),
    )
    options.prepare?.(context)
    validateVersion(
      context.requestedVersion,
      await options.requestHandler.getAgentCard(),
      'JSONRPC',
    )
    const handler = withTypedFaults(options.requestHandler, {
      legacy,
      log: request.log,
      requestId: request.id,
    })
    const transport = legacy
      ? new LegacyJsonRpcTransportHandler(handler)
      : new JsonRpcTransportHandler(handler)
    const answer = await transport.handle(body as Record<string, unknown>, context)
    if (context.activatedExtensions) {
      reply.header(
        legacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER,
        [...context.activatedExtensions].join(','),
      )
    }
    if (!(Symbol.asyncIterator in answer)) {
      return reply.status(200).type('application/json').send(answer)
    }
    const iterator = answer[Symbol.asyncIterator]()
    // A stream that fails before its first event is a plain JSON-RPC error, not an SSE one,
    // except v0.3's resubscribe, which always answers with a stream.
    let first: IteratorResult<unknown> | undefined
    if (!(legacy && body.method === LEGACY_METHOD_TASKS_RESUBSCRIBE)) {
      try {
        first = await iterator.next()
      } catch (error) {
        return sendJsonRpcError(reply, id, mapError(error))
      }
    }
    reply.hijack()
    const raw = reply.raw
    raw.writeHead(200, { ...SSE_HEADERS, ...(reply.getHeaders() as Record<string, string>) })
    // A client that goes away stops the stream, not the task.
    const onClose = () => void iterator.return?.(undefined)
    request.raw.once('close', onClose)
    try {
      if (first && !first.done) raw.write(formatSSEEvent(first.value))
      for (;;) {
        const next = await iterator.next()
        if (next.done) break
        raw.write(formatSSEEvent(next.value))
      }
    } catch (error) {
      if (!raw.writableEnded) {
        raw.write(formatSSEErrorEvent({ jsonrpc: '2.0', id: id, error: mapError(error) }))
      }
    } finally {
      request.raw.off('close', onClose)
      if (!raw.writableEnded) raw.end()
    }
    return undefined
  } catch (error) {
    const mapped = mapError(error)
    if (mapped.code === A2A_ERROR_CODE.INTERNAL_ERROR) {
      request.log.error({ err: error }, 'A2A JSON-RPC request failed')
    }
    return sendJsonRpcError(
      reply,
      id,
      mapped,
      mapped.code === A2A_ERROR_CODE.INTERNAL_ERROR ? 500 : 200,
    )
  }
}

/** Whether the params carry a message that names neither a context nor a task (v1.0 and v0.3 alike). */
function startsNewContext(params: unknown): boolean {
  const message = (params as { message?: unknown } | undefined)?.message
  if (typeof message !== 'object' || message === null) return false
  const { contextId, taskId } = message as { contextId?: unknown; taskId?: unknown }
  return !contextId && !taskId
}

/** Whether a send waits for the task to settle (v1.0 `returnImmediately`, v0.3 `blocking`). */
function blocks(params: unknown): boolean {
  const configuration = (params as { configuration?: unknown } | undefined)?.configuration
  if (typeof configuration !== 'object' || configuration === null) return true
  const { returnImmediately, return_immediately, blocking } = configuration as Record<
    string,
    unknown
  >
  return !returnImmediately && !return_immediately && blocking !== false
}

/** The request's id when it is one JSON-RPC allows (a string, a number or null), else null. */
function readableId(body: unknown): string | number | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null
  const id = (body as { id?: unknown }).id
  return typeof id === 'string' || typeof id === 'number' ? id : null
}

/**
 * What makes a body not a JSON-RPC 2.0 request (the SDK would call it a parameter error,
 * -32602; the JSON-RPC spec says -32600), or undefined when it is one.
 */
function invalidEnvelope(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return 'A JSON-RPC request must be an object (batches are not part of A2A).'
  }
  const request = body as Record<string, unknown>
  if (request.jsonrpc !== '2.0') return 'A JSON-RPC request must say "jsonrpc": "2.0".'
  if (typeof request.method !== 'string' || request.method === '') {
    return 'A JSON-RPC request must name its method.'
  }
  const id = request.id
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number') {
    return 'A JSON-RPC id must be a string, a number or null.'
  }
  const params = request.params
  if (params !== undefined && (typeof params !== 'object' || params === null)) {
    return 'JSON-RPC params must be an object.'
  }
  return undefined
}
