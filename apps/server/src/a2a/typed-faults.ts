import { A2A_ERROR_CODE, A2AError, type A2AErrorInfo } from '@a2a-js/sdk/errors'
import type { A2ARequestHandler } from '@a2a-js/sdk/server'
import type { FastifyBaseLogger } from 'fastify'
import { retryAfterOf, toErrorResponse } from '../http/error-handler'

/** The `ErrorInfo.domain` of Baton's own reasons (the protocol's are `a2a-protocol.org`). */
export const BATON_ERROR_DOMAIN = 'baton'

/**
 * What failed in Baton, as an A2A error: `-32603` with a `google.rpc.ErrorInfo` whose reason is
 * Baton's code (`DATABASE_UNAVAILABLE`, `TRANSPORT_FAILED`, ...) and whose metadata carry the
 * HTTP API's status, its `Retry-After` for a 503 and the error's details, so a client can tell
 * "try again in a moment" from a fault it cannot fix. The SDK puts the ErrorInfo in the
 * answer's `data` for v1.0; a v0.3 client gets the same `data` (`legacy`).
 */
class BatonFault extends A2AError {
  override readonly reason: string
  // Read by the SDK's v0.3 mapping, which passes a JSON-RPC error's own data on.
  readonly transport?: 'jsonrpc'
  readonly envelopeCode?: number
  readonly data?: unknown

  constructor(
    message: string,
    reason: string,
    metadata: Record<string, string>,
    options: { legacy: boolean; cause: unknown },
  ) {
    super({ message, metadata, cause: options.cause })
    this.reason = reason
    if (options.legacy) {
      this.transport = 'jsonrpc'
      this.envelopeCode = A2A_ERROR_CODE.INTERNAL_ERROR
      this.data = [this.toErrorInfo()]
    }
  }

  override toErrorInfo(): A2AErrorInfo {
    // The SDK's type knows the protocol's domain only; Baton's reasons are Baton's.
    return { ...super.toErrorInfo(), domain: BATON_ERROR_DOMAIN } as unknown as A2AErrorInfo
  }
}

/**
 * The request handler, whose faults reach an A2A client typed as the HTTP API's do: a Baton
 * error (the database away, a full disk, Redis gone) as a `BatonFault` naming its code, and
 * any other error, whose text may hold what only the operator should read, as `INTERNAL` naming
 * the request's id, the error itself in the log. The protocol's own errors (`TaskNotFoundError`
 * and the rest) pass as they are. A fault of a stream is typed too, and a stream stopped by its
 * reader stops the handler's.
 *
 * @example
 * const transport = new JsonRpcTransportHandler(withTypedFaults(handler, { legacy, log: request.log, requestId: request.id }))
 */
export function withTypedFaults(
  handler: A2ARequestHandler,
  options: { legacy: boolean; log: FastifyBaseLogger; requestId: string },
): A2ARequestHandler {
  const typed = (error: unknown) => typedFault(error, options)
  return new Proxy(handler, {
    get(target, name) {
      // Read from the handler itself: its methods reach its private fields through `this`.
      const value: unknown = Reflect.get(target, name)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        let result: unknown
        try {
          result = value.apply(target, args)
        } catch (error) {
          throw typed(error)
        }
        if (result instanceof Promise) {
          return result.catch((error: unknown) => {
            throw typed(error)
          })
        }
        if (isAsyncIterable(result)) return typedStream(result, typed)
        return result
      }
    },
  })
}

function typedFault(
  error: unknown,
  options: { legacy: boolean; log: FastifyBaseLogger; requestId: string },
): unknown {
  if (error instanceof A2AError) return error
  const { status, body } = toErrorResponse(error)
  if (status >= 500) options.log.error({ err: error }, 'A2A request failed')
  const { code, message, details } = body.error
  const metadata: Record<string, string> = { status: String(status) }
  if (code === 'INTERNAL') metadata.requestId = options.requestId
  else {
    for (const [key, value] of Object.entries(details)) {
      metadata[key] = typeof value === 'string' ? value : JSON.stringify(value)
    }
  }
  const retryAfter = retryAfterOf(status, details)
  if (retryAfter !== undefined) metadata.retryAfterSeconds = String(retryAfter)
  const told =
    code === 'INTERNAL'
      ? `Internal error: the server's log has it under request id ${options.requestId}.`
      : message
  return new BatonFault(told, code, metadata, { legacy: options.legacy, cause: error })
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value
}

async function* typedStream<T>(
  stream: AsyncIterable<T>,
  typed: (error: unknown) => unknown,
): AsyncGenerator<T, void, undefined> {
  try {
    // `yield*` hands a reader's `return` on to the handler's stream.
    yield* stream
  } catch (error) {
    throw typed(error)
  }
}
