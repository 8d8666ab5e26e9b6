import { type IncomingMessage, maxHeaderSize, STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import { BatonError } from '@baton/core'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod'
import { ACCEPTED_MEDIA_TYPES } from './body-parsers'
import { corsHeadersFor } from './cors-headers'
import { HttpError } from './http-errors'
import { statusOfCode } from './status-of-code'

export type ErrorBody = {
  error: { code: string; message: string; details: Record<string, unknown> }
}

type ErrorResponse = { status: number; body: ErrorBody }

/** One refusal: its status, and the body every route answers with. */
function errorResponse(
  status: number,
  code: string,
  message: string,
  details: Record<string, unknown> = {},
): ErrorResponse {
  return { status, body: { error: { code, message, details } } }
}

/** Fastify's own error codes (body parsing, limits) as Baton codes. */
const fastifyCodes: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
}

/**
 * Turns any error into `{ error: { code, message, details } }` with the status of its code.
 * `contentType` is the request's, named when the body's media type is what was refused.
 *
 * @example
 * const { status, body } = toErrorResponse(new NotFoundError('run', 'r1')) // 404
 */
export function toErrorResponse(error: unknown, contentType?: string): ErrorResponse {
  if (error instanceof HttpError) {
    return errorResponse(error.statusCode, error.code, error.shortMessage, error.details)
  }
  if (BatonError.isInstance(error)) {
    return errorResponse(statusOfCode(error.code), error.code, error.shortMessage, error.details)
  }
  const fastifyError = error as FastifyError
  if (hasZodFastifySchemaValidationErrors(error)) {
    const issues = error.validation.map((issue) => ({
      path: [error.validationContext, ...issue.instancePath.split('/').filter(Boolean)].join('.'),
      message: issue.message ?? 'is invalid',
    }))
    return errorResponse(
      400,
      'VALIDATION_FAILED',
      `Invalid request: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
      { issues },
    )
  }
  // The router's own refusals, before any route is matched: so they name the path, not a field.
  if (fastifyError.code === 'FST_ERR_BAD_URL') {
    return errorResponse(
      statusOfCode('BAD_REQUEST'),
      'BAD_REQUEST',
      "The request's path is not a valid URL: a percent-escape in it is broken (a '%' must be followed by two hexadecimal digits that decode to UTF-8).",
      { field: 'path' },
    )
  }
  if (fastifyError.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return errorResponse(
      statusOfCode('PATH_PARAMETER_TOO_LONG'),
      'PATH_PARAMETER_TOO_LONG',
      `A parameter in the request's path is longer than ${MAX_PATH_PARAMETER_LENGTH} characters: no id, wallet or name in a path is that long.`,
      { field: 'path', maxLength: MAX_PATH_PARAMETER_LENGTH },
    )
  }
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return unsupportedMediaType(contentType)
  }
  if (fastifyError.code && fastifyCodes[fastifyError.code]) {
    const code = fastifyCodes[fastifyError.code]!
    return errorResponse(statusOfCode(code), code, fastifyError.message)
  }
  if (fastifyError.statusCode === 429) {
    return errorResponse(429, 'RATE_LIMITED', fastifyError.message)
  }
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return errorResponse(fastifyError.statusCode, 'BAD_REQUEST', fastifyError.message)
  }
  return errorResponse(500, 'INTERNAL', 'Internal server error.')
}

function unsupportedMediaType(contentType: string | undefined): ErrorResponse {
  const received = contentType?.split(';', 1)[0]?.trim().toLowerCase() || undefined
  const accepted = ACCEPTED_MEDIA_TYPES.join(' or ')
  return errorResponse(
    statusOfCode('UNSUPPORTED_MEDIA_TYPE'),
    'UNSUPPORTED_MEDIA_TYPE',
    received
      ? `The request's body is sent as "${received}", which is not read here: send it as ${accepted}.`
      : `The request has a body but no Content-Type: send it as ${accepted}.`,
    {
      field: 'content-type',
      ...(received ? { received } : {}),
      accepted: ACCEPTED_MEDIA_TYPES,
    },
  )
}

/** The longest path parameter the router reads (fastify's `maxParamLength`). */
export const MAX_PATH_PARAMETER_LENGTH = 100

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route or hook runs (a path
 * with a broken percent-escape, a path parameter past `MAX_PATH_PARAMETER_LENGTH`) in Baton's
 * error shape, not fastify's own, with the CORS headers a page of an allowed origin needs to
 * read it (no hook adds them to these).
 *
 * @example
 * Fastify({
 *   frameworkErrors: frameworkErrorSender({ corsOrigins: settings.corsOrigins }),
 *   routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
 * })
 */
export function frameworkErrorSender(options: { corsOrigins: readonly string[] }) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const { status, body } = toErrorResponse(error)
    const cors = corsHeadersFor(options.corsOrigins, request.headers.origin)
    if (cors) reply.headers(cors)
    // No hook runs for these: the id every other answer carries is set here.
    reply.header('x-request-id', request.id).status(status).send(body)
  }
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser cannot read (not HTTP/1.1,
 * a broken header, headers past `maxHeaderSize`, too slow to arrive) is answered in Baton's
 * error shape, naming what was wrong, and its connection closed (nothing after it on the
 * connection can be read either).
 *
 * @example
 * Fastify({ clientErrorHandler: answerClientError })
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // Reset or gone: there is no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const { status, body } = clientErrorResponse(
    error as NodeJS.ErrnoException & { reason?: unknown },
  )
  if (socket.writable) {
    const text = JSON.stringify(body)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    )
  }
  socket.destroy()
}

function clientErrorResponse(error: NodeJS.ErrnoException & { reason?: unknown }): ErrorResponse {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return errorResponse(
      statusOfCode('REQUEST_TIMEOUT'),
      'REQUEST_TIMEOUT',
      'The request did not arrive in full in time; its connection is closed.',
    )
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return errorResponse(
      statusOfCode('HEADERS_TOO_LARGE'),
      'HEADERS_TOO_LARGE',
      `The request's headers are larger than the ${maxHeaderSize} bytes the server reads.`,
      { field: 'headers', maxBytes: maxHeaderSize },
    )
  }
  // The parser's own words (llhttp's reason: "Invalid header value char", ...), when it has them.
  const reason = typeof error.reason === 'string' && error.reason !== '' ? error.reason : undefined
  return errorResponse(
    statusOfCode('BAD_REQUEST'),
    'BAD_REQUEST',
    `The request is not valid HTTP/1.1${reason ? `: ${reason}` : ''}.`,
    error.code ? { parserCode: error.code } : {},
  )
}

/**
 * The challenge of a 401 for a missing or refused bearer credential (RFC 9110 §11.6.1: a 401
 * carries one; RFC 6750 §3: `invalid_token` when a credential was sent and is not good).
 *
 * @example
 * bearerChallenge(undefined) // 'Bearer realm="baton"'
 */
function bearerChallenge(authorization: string | undefined): string {
  return authorization === undefined
    ? 'Bearer realm="baton"'
    : 'Bearer realm="baton", error="invalid_token"'
}

/**
 * The challenge of every 401: a bearer credential's (`UNAUTHORIZED`), or, for a signed change
 * refused (`SIGNATURE_*`: the credential is its EIP-712 signature, in the body), that scheme's,
 * naming the code.
 *
 * @example
 * challengeOf('SIGNATURE_EXPIRED', undefined) // 'EIP712 realm="baton", error="signature_expired"'
 */
function challengeOf(code: string, authorization: string | undefined): string {
  return code.startsWith('SIGNATURE_')
    ? `EIP712 realm="baton", error="${code.toLowerCase()}"`
    : bearerChallenge(authorization)
}

/**
 * How long a client should wait before it retries a 503, in seconds: the model provider's own
 * wait for its rate limit when it gave one, else a short one (the server cannot know when its
 * database or Redis is back, or when a draining process's successor answers). Clients that
 * retry by themselves (`ky`, `got`, most SDKs) read it.
 */
const RETRY_AFTER_SECONDS = 5

/**
 * How long a client should wait before it retries an answer of `status` with these details,
 * in seconds, or undefined when it is not one to retry as it is (only a 503 is).
 *
 * @example
 * retryAfterOf(503, {}) // 5
 */
export function retryAfterOf(status: number, details: Record<string, unknown>): number | undefined {
  if (status !== 503) return undefined
  const asked = details.retryAfterSeconds
  return typeof asked === 'number' && asked > 0 ? Math.ceil(asked) : RETRY_AFTER_SECONDS
}

/** Installs the one error handler (and the 404 handler) of the app. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const { status, body } = toErrorResponse(error, request.headers['content-type'])
    if (status >= 500) request.log.error({ err: error }, 'request failed')
    // What failed is in the log, under this id: the answer names nothing else of it.
    if (body.error.code === 'INTERNAL') body.error.details = { requestId: request.id }
    // RFC 9110 §15.5.2: a 401 carries a challenge.
    if (status === 401) {
      reply.header('www-authenticate', challengeOf(body.error.code, request.headers.authorization))
    }
    const retryAfter = retryAfterOf(status, body.error.details)
    if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter))
    const send = () => reply.status(status).send(body)
    // A body refused before it was read in full (too large) is answered on a connection that
    // then closes: the answer waits for the rest of it, so it reaches the client.
    if (!request.raw.readableEnded && reply.getHeader('connection') === 'close') {
      return dropRestOfBody(request.raw).then(send)
    }
    return send()
  })
}

/** At most this much of a refused body is read (and dropped) before its answer... */
const DROP_MAX_BYTES = 64 * 1024 * 1024
/** ...and for at most this long. */
const DROP_MAX_MS = 10_000

/**
 * Reads and drops what is left of a request's body. A connection closed with data of a
 * request still unread is reset: a client still sending its body sees ECONNRESET or EPIPE,
 * not the answer that said why (a 413 naming the limit). Bounded: past `DROP_MAX_BYTES` or
 * `DROP_MAX_MS` it stops reading, and the client may see the reset after all.
 *
 * @example
 * await dropRestOfBody(request.raw) // then the 413
 */
function dropRestOfBody(raw: IncomingMessage): Promise<void> {
  if (raw.complete || raw.readableEnded || raw.destroyed) return Promise.resolve()
  return new Promise((resolve) => {
    let dropped = 0
    const done = () => {
      clearTimeout(timer)
      raw.off('data', onData)
      raw.off('end', done)
      raw.off('error', done)
      raw.off('close', done)
      resolve()
    }
    const onData = (chunk: Buffer) => {
      dropped += chunk.length
      if (dropped > DROP_MAX_BYTES) done()
    }
    const timer = setTimeout(done, DROP_MAX_MS)
    raw.on('data', onData)
    raw.once('end', done)
    raw.once('error', done)
    raw.once('close', done)
    raw.resume()
  })
}
