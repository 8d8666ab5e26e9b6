import type { FastifyInstance, FastifyReply } from 'fastify'
import FindMyWay from 'find-my-way'
import { MAX_PATH_PARAMETER_LENGTH } from './error-handler'
import { HttpError } from './http-errors'
import { statusOfCode } from './status-of-code'

type HTTPMethod = FindMyWay.HTTPMethod

const noop = () => {}

/**
 * Which methods the app's routes answer at a path: what a `405 Method Not Allowed` names in
 * its `Allow` header, for a request whose path is a route but whose method is not. Fastify's
 * router finds a route by method first, so it keeps a second router of every route, matched
 * the same way (fastify's own, `find-my-way`), read only when no route answered.
 *
 * @example
 * const methods = new RouteMethods(app) // before any route is added
 * methods.at('/api/v1/agents') // ['GET', 'HEAD', 'POST']
 */
export class RouteMethods {
  readonly #router = FindMyWay({
    ignoreTrailingSlash: true,
    maxParamLength: MAX_PATH_PARAMETER_LENGTH,
    defaultRoute: noop,
  })
  readonly #methods = new Set<HTTPMethod>()

  constructor(app: FastifyInstance) {
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat() as HTTPMethod[]) {
        this.#methods.add(method)
        this.#router.on(method, route.url, noop)
      }
    })
  }

  /** The methods some route answers at `path` (a path as requested, without its query). */
  at(path: string): HTTPMethod[] {
    return [...this.#methods].filter((method) => this.#router.find(method, path) !== null).sort()
  }

  /**
   * The 405 for `method` at `path` when a route there answers other methods (its `Allow` set
   * on `reply`), rather than a 404 that reads as "no such agent"; undefined when none does.
   */
  refusal(method: string, path: string, reply: FastifyReply): HttpError | undefined {
    const allowed = this.at(path)
    if (allowed.length === 0) return undefined
    reply.header('allow', allowed.join(', '))
    return new HttpError(
      statusOfCode('METHOD_NOT_ALLOWED'),
      'METHOD_NOT_ALLOWED',
      `${path} does not answer ${method}; it answers ${allowed.join(', ')}.`,
      { method, allowed },
    )
  }
}
