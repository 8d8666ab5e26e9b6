import { ValidationError } from '@baton/core'
import type { FastifyInstance } from 'fastify'
import { findUnsafeValue } from './find-unsafe-value'

/**
 * Checks every request's path parameters, query and (parsed, non-text) body before its
 * route validates it: a NUL character anywhere, or JSON nested deeper than
 * `maxInputDepth`, is a 400 `VALIDATION_FAILED` naming where (`body.inputs.q`), instead of
 * a database error or a stack overflow later. Text bodies (the A2A endpoint reads its body
 * as text) are the route's to check.
 *
 * @example
 * installInputChecks(app)
 */
export function installInputChecks(app: FastifyInstance): void {
  // A callback hook: the check never waits, and every request passes it.
  app.addHook('preValidation', (request, _reply, done) => {
    const unsafe =
      findUnsafeValue(request.params, 'params') ??
      findUnsafeValue(request.query, 'querystring') ??
      (typeof request.body === 'object' ? findUnsafeValue(request.body, 'body') : undefined)
    done(unsafe ? new ValidationError('request', [unsafe]) : undefined)
  })
}
