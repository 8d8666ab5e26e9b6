import { maxHeaderSize, STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import { BatonError } from '@baton/core'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod'
import { HttpError } from './http-errors'
import { statusOfCode } from './status-of-code'

export type ErrorBody = {
  error: { code: string; message: string; details: Record<string, unknown> }
}

/** Fastify's own error codes (body parsing, limits) as Baton codes. */
const fastifyCodes: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'BAD_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BAD_REQUEST',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
}

/**
 * Turns any error into `{ error: { code, message, details } }` with the status of its code.
 *
 * @example
 * const { status, body } = toErrorResponse(new NotFoundError('run', 'r1')) // 404
 */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof HttpError) {
    return {
      status: error.statusCode,
      body: { error: { code: error.code, message: error.shortMessage, details: error.details } },
    }
  }
  if (BatonError.isInstance(error)) {
    return {
      status: statusOfCode(error.code),
      body: { error: { code: error.code, message: error.shortMessage, details: error.details } },
    }
  }
  const fastifyError = error as FastifyError
  if (hasZodFastifySchemaValidationErrors(error)) {
    const issues = error.validation.map((issue) => ({
      path: [error.validationContext, ...issue.instancePath.split('/').filter(Boolean)].join('.'),
      message: issue.message ?? 'is invalid',
    }))
    return {
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_FAILED',
          message: `Invalid request: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
          details: { issues },
        },
      },
    }
  }
  // The router's own refusals, before any route is matched: so they name the path, not a field.
  if (fastifyError.code === 'FST_ERR_BAD_URL') {
    return {
      status: 400,
      body: {
        error: {
          code: 'BAD_REQUEST',
          message:
            "The request's path is not a valid URL: a percent-escape in it is broken (a '%' must be followed by two hexadecimal digits that decode to UTF-8).",
          details: { field: 'path' },
        },
      },
    }
  }
  if (fastifyError.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return {
      status: 414,
      body: {
        error: {
          code: 'PATH_PARAMETER_TOO_LONG',
          message: `A parameter in the request's path is longer than ${MAX_PATH_PARAMETER_LENGTH} characters: no id, wallet or name in a path is that long.`,
          details: { field: 'path', maxLength: MAX_PATH_PARAMETER_LENGTH },
        },
      },
    }
  }
  if (fastifyError.code && fastifyCodes[fastifyError.code]) {
    const code = fastifyCodes[fastifyError.code]!
    return {
      status: statusOfCode(code),
      body: { error: { code, message: fastifyError.message, details: {} } },
    }
  }
  if (fastifyError.statusCode === 429) {
    return {
      status: 429,
      body: { error: { code: 'RATE_LIMITED', message: fastifyError.message, details: {} } },
    }
  }
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return {
      status: fastifyError.statusCode,
      body: { error: { code: 'BAD_REQUEST', message: fastifyError.message, details: {} } },
    }
  }
  return {
    status: 500,
    body: { error: { code: 'INTERNAL', message: 'Internal server error.', details: {} } },
  }
}

/** The longest path parameter the router reads (fastify's `maxParamLength`). */
export const MAX_PATH_PARAMETER_LENGTH = 100

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route or hook runs (a path
 * with a broken percent-escape, a path parameter past `MAX_PATH_PARAMETER_LENGTH`) in Baton's
 * error shape, not fastify's own.
 *
 * @example
 * Fastify({ frameworkErrors: sendFrameworkError, maxParamLength: MAX_PATH_PARAMETER_LENGTH })
 */
export function sendFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const { status, body } = toErrorResponse(error)
  reply.status(status).send(body)
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

function clientErrorResponse(error: NodeJS.ErrnoException & { reason?: unknown }): {
  status: number
  body: ErrorBody
} {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      body: {
        error: {
          code: 'REQUEST_TIMEOUT',
          message: 'The request did not arrive in full in time; its connection is closed.',
          details: {},
        },
      },
    }
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      body: {
        error: {
          code: 'HEADERS_TOO_LARGE',
          message: `The request's headers are larger than the ${maxHeaderSize} bytes the server reads.`,
          details: { field: 'headers', maxBytes: maxHeaderSize },
        },
      },
    }
  }
  // The parser's own words (llhttp's reason: "Invalid header value char", ...), when it has them.
  const reason = typeof error.reason === 'string' && error.reason !== '' ? error.reason : undefined
  return {
    status: 400,
    body: {
      error: {
        code: 'BAD_REQUEST',
        message: `The request is not valid HTTP/1.1${reason ? `: ${reason}` : ''}.`,
        details: { ...(error.code ? { parserCode: error.code } : {}) },
      },
    },
  }
}

/** Installs the one error handler (and the 404 handler) of the app. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const { status, body } = toErrorResponse(error)
    if (status >= 500) request.log.error({ err: error }, 'request failed')
    return reply.status(status).send(body)
  })
}
