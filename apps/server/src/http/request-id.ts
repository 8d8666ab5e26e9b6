import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** An id a client or a proxy may give a request: short, and nothing a log line could misread. */
const givenId = /^[\w.:-]{1,128}$/

/** This process's own: 48 random bits, so no two processes (or starts) share an id. */
const processPrefix = randomBytes(6).toString('hex')
let made = 0

/**
 * Fastify's `genReqId`: the id of a request, in its log lines and its answer's `x-request-id`.
 * A proxy's or a client's own `x-request-id` is kept when it is a plain token of at most 128
 * characters (so one id follows the request through every hop); anything else gets the
 * process's random prefix and its count (`3f9c0a1b7e42-1k`). Unlike fastify's own counter
 * (`req-1`), no two processes or starts give the same ids; unlike a UUID per request (1.3% of
 * the server's CPU on `GET /agent/:wallet`, profiled), it costs a string.
 *
 * @example
 * Fastify({ genReqId: requestIdOf })
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id']
  if (typeof given === 'string' && givenId.test(given)) return given
  made += 1
  return `${processPrefix}-${made.toString(36)}`
}
