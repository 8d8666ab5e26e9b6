import type { FastifyInstance } from 'fastify'

/** The media types the API's bodies are read in (what a 415 names). */
export const ACCEPTED_MEDIA_TYPES = ['application/json']

/**
 * The bodies the API reads: JSON, with fastify's own parser (prototype keys refused), where an
 * empty body is no body. A client whose wrapper sends `Content-Type: application/json` on
 * every request can `POST /api/v1/runs/:id/cancel` with nothing after it; a route that needs
 * a body still refuses its absence by name (`VALIDATION_FAILED`, `body`). A body sent as text
 * is refused 415, naming its type, rather than read as a string that then fails validation
 * as "not an object". (The A2A endpoint reads its own.)
 *
 * @example
 * installBodyParsers(app)
 */
export function installBodyParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser([...ACCEPTED_MEDIA_TYPES, 'text/plain'])
  app.addContentTypeParser(ACCEPTED_MEDIA_TYPES, { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined)
    else parseJson(request, body as string, done)
  })
}
