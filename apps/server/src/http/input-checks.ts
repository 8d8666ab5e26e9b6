import { ValidationError } from '@baton/core'
import type { FastifyInstance } from 'fastify'
import { findUnsafeValue, type UnsafeValue } from './find-unsafe-value'

/**
 * Checks every request's path parameters, query and (parsed, non-text) body before its
 * route validates it: a NUL character anywhere, or JSON nested deeper than
 * `maxInputDepth`, is a 400 `VALIDATION_FAILED` naming where (`body.inputs.q`), instead of
 * a database error or a stack overflow later. So is a query parameter given more than once
 * (`?limit=2&limit=3`): no route reads a list from the query, and the validator would say
 * only that a number was "NaN". Text bodies (the A2A endpoint reads its body
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
      findRepeatedParameter(request.query) ??
      findUnsafeValue(request.query, 'querystring') ??
      (typeof request.body === 'object' ? findUnsafeValue(request.body, 'body') : undefined)
    done(unsafe ? new ValidationError('request', [unsafe]) : undefined)
  })
}

/** The first query parameter given more than once, if any (they are read as an array). */
function findRepeatedParameter(query: unknown): UnsafeValue | undefined {
  if (query === null || typeof query !== 'object') return undefined
  for (const name in query) {
    const value = (query as Record<string, unknown>)[name]
    if (Array.isArray(value)) {
      return {
        path: `querystring.${name}`,
        message: `is given ${value.length} times; give it once`,
      }
    }
  }
  return undefined
}
