import type { FastifyInstance } from 'fastify'
import { bearerTokenOf, sameSecret } from '../auth/bearer-token'
import { HttpError } from '../http/http-errors'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that changes nothing (a check): the token rules of a read apply to it. */
    readOnly?: boolean
  }
}

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS'])
// Liveness and readiness stay open for orchestrators' probes.
const alwaysOpen = new Set(['/health', '/ready'])

/**
 * With `BATON_API_TOKEN` set, every request that changes state needs
 * `Authorization: Bearer <token>` (401 without); reads too when `BATON_PUBLIC_READS=false`.
 *
 * @example
 * requireToken(app, { token: settings.apiToken, publicReads: true })
 */
export function requireToken(
  app: FastifyInstance,
  options: { token: string | undefined; publicReads: boolean },
): void {
  const { token } = options
  if (!token) return
  app.addHook('onRequest', async (request) => {
    // The route that matched, not the raw target: `/%61pi/v1/runs` and the absolute form
    // `http://host/api/v1/runs` reach the same handler as `/api/v1/runs`. Unmatched requests
    // get the not-found handler (the playground's index.html or a JSON 404), which holds no data.
    const route = request.routeOptions.url
    if (route === undefined || alwaysOpen.has(route)) return
    const path = route
    const read = readMethods.has(request.method) || request.routeOptions.config?.readOnly === true
    if (read && options.publicReads) return
    // The playground's own files are no API.
    if (readMethods.has(request.method) && !isApiPath(path)) return
    const given = bearerTokenOf(request.headers.authorization)
    if (!given || !sameSecret(given, token)) {
      throw new HttpError(401, 'UNAUTHORIZED', 'This route needs the API token as a bearer token.')
    }
  })
}

/** Paths the server answers itself (everything else may be the playground's). */
export function isApiPath(path: string): boolean {
  return (
    path.startsWith('/api/') ||
    path.startsWith('/agent/') ||
    path.startsWith('/a2a') ||
    path.startsWith('/docs') ||
    path.startsWith('/.well-known/') ||
    path === '/health' ||
    path === '/ready'
  )
}
