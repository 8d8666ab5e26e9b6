import type { FastifyReply, FastifyRequest } from 'fastify'
import helmet from 'helmet'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: the route sets its own (see `cachedJsonHeaders`), helmet's are not added. */
    securityHeaders?: false
  }
}

// helmet's defaults but the content security policy: the Swagger UI and the playground load
// their own scripts and styles. Its middleware is made once: the fastify plugin made it again
// for every request, in an async hook that every route paid, those that opt out too.
const helmetHeaders = helmet({ contentSecurityPolicy: false })

// helmet's middleware throws what goes wrong (an option it refuses, when it is made); it
// calls this when it has set its headers.
const noop = (): void => {}

/**
 * Adds helmet's security headers to an answer, unless its route opts out
 * (`config: { securityHeaders: false }`). Synchronous: headers only, nothing awaited.
 *
 * @example
 * app.addHook('onRequest', (request, reply, done) => {
 *   addSecurityHeaders(request, reply)
 *   done()
 * })
 */
export function addSecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  if (request.routeOptions.config.securityHeaders === false) return
  helmetHeaders(request.raw, reply.raw, noop)
}
