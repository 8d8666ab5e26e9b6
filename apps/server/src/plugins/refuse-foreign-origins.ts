import type { FastifyInstance } from 'fastify'
import { HttpError } from '../http/http-errors'
import { type ListeningAddress, listeningAddressOf, ownOrigins } from '../http/public-url'

const changingMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** A browser sent a state-changing request from a page of an origin this server does not allow. */
export class OriginNotAllowedError extends HttpError {
  override name = 'OriginNotAllowedError'
  constructor(origin: string) {
    super(
      403,
      'ORIGIN_NOT_ALLOWED',
      `Requests that change state are not accepted from pages of ${JSON.stringify(origin)}; allow the origin with BATON_CORS_ORIGINS.`,
      { origin },
    )
  }
}

export type RefuseForeignOriginsOptions = {
  /** BATON_CORS_ORIGINS (`*` allows every origin). */
  corsOrigins: readonly string[]
  /** BATON_PUBLIC_URL: the origin the server's own pages come from. */
  publicUrl: string | undefined
  /** The configured host and port, for requests before the server listens (`inject()`). */
  listening: ListeningAddress
}

/**
 * Every request that changes state (POST, PUT, PATCH, DELETE) and carries an `Origin` header
 * must come from an allowed origin: the server's own (its public URL, else its listening
 * address) or one of BATON_CORS_ORIGINS; any other gets 403 `ORIGIN_NOT_ALLOWED` before its
 * route runs. Browsers send `Origin` with every cross-site POST, also with `mode: 'no-cors'`
 * (which CORS itself does not stop); clients that are not browsers send none and pass.
 *
 * @example
 * refuseForeignOrigins(app, { corsOrigins: settings.corsOrigins, publicUrl: settings.publicUrl, listening: { address: settings.host, port: settings.port } })
 */
export function refuseForeignOrigins(
  app: FastifyInstance,
  options: RefuseForeignOriginsOptions,
): void {
  const allowAll = options.corsOrigins.includes('*')
  const configured = new Set(options.corsOrigins.map(normalizedOrigin))
  // A callback hook: it never waits, and every request passes it (an async hook would cost
  // each a promise and a microtask turn).
  app.addHook('onRequest', (request, _reply, done) => {
    done(allowAll ? undefined : refusalOf(request.method, request.headers.origin))
  })
  const refusalOf = (method: string, origin: string | undefined) => {
    if (!changingMethods.has(method) || origin === undefined) return undefined
    const given = normalizedOrigin(origin)
    if (configured.has(given)) return undefined
    const own = ownOrigins({
      publicUrl: options.publicUrl,
      listening: listeningAddressOf(app.server, options.listening),
    })
    return own.includes(given) ? undefined : new OriginNotAllowedError(origin)
  }
}

/** An origin as the URL standard serializes it (`HTTP://Example.com:80` → `http://example.com`). */
function normalizedOrigin(origin: string): string {
  try {
    const url = new URL(origin)
    return url.origin === 'null' ? origin : url.origin
  } catch {
    // `null` (sandboxed frames, files) and anything else that is no URL match nothing.
    return origin
  }
}
