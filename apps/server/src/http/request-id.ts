import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** An id a client or a proxy may give a request: short, and nothing a log line could misread. */
const givenId = /^[\w.:-]{1,128}$/

/**
 * Fastify's `genReqId`: the id of a request, in its log lines and its answer's `x-request-id`.
 * A proxy's or a client's own `x-request-id` is kept when it is a plain token of at most 128
 * characters (so one id follows the request through every hop); anything else gets a UUID.
 * Ids are unique across processes and restarts, unlike fastify's counter (`req-1`).
 *
 * @example
 * Fastify({ genReqId: requestIdOf })
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id']
  return typeof given === 'string' && givenId.test(given) ? given : randomUUID()
}
