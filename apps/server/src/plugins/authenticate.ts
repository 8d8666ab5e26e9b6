import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify'
import { bearerTokenOf, sameSecret } from '../auth/bearer-token'
import type { KnownCredentials } from '../auth/known-credentials'
import {
  adminPrincipal,
  anonymousPrincipal,
  hasScope,
  type Principal,
  type Scope,
} from '../auth/principal'
import { API_KEY_PREFIX, type ApiKeysRepository } from '../db/api-keys-repository'
import { HttpError } from '../http/http-errors'

/** What a route needs: nothing (`public`), or a scope. */
export type RouteAccess = 'public' | Scope

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that changes nothing (a check): the rules of a read apply to it. */
    readOnly?: boolean
    /**
     * What the route needs. Unset: `read` for reads (GET, HEAD, OPTIONS, `readOnly`) and
     * `run` for the other methods on API paths; `public` for the playground's files.
     */
    access?: RouteAccess
  }
  interface FastifyRequest {
    /** Who the request comes from (see `authenticate`). */
    principal: Principal
    /** Whether reads of runs and conversations are open to every reader here. */
    readsArePublic: boolean
  }
}

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS'])
// Liveness and readiness stay open for orchestrators' probes.
const alwaysOpen = new Set(['/health', '/ready'])
// How long "does any API key exist" is remembered (keys made by the CLI count after it).
const keysCheckMs = 5_000
const nobody = anonymousPrincipal({ authConfigured: true, publicReads: false })

export type AuthenticateOptions = {
  /** The admin token (`BATON_API_TOKEN`). */
  token: string | undefined
  /** `BATON_PUBLIC_READS`; unset: reads are public only while no token or key exists. */
  publicReads: boolean | undefined
  apiKeys: ApiKeysRepository
  /** Told of each credential that authenticates (for the rate limit, see `KnownCredentials`). */
  credentials?: KnownCredentials
}

/**
 * Resolves every request to a principal (`request.principal`): the admin token holder, an
 * API key (with its scopes), or anonymous, and refuses a route whose access the principal
 * lacks: 401 without (or with a wrong) credential, 403 for a key without the scope. The
 * decision is made on the route that matched (`request.routeOptions.url`), never on the raw
 * target, so `/%61pi/v1/runs` or `http://host/api/v1/runs` are judged as `/api/v1/runs`.
 *
 * @example
 * authenticate(app, { token: settings.apiToken, publicReads: settings.publicReads, apiKeys })
 */
export function authenticate(app: FastifyInstance, options: AuthenticateOptions): void {
  const { token, apiKeys } = options
  let keysKnown: { live: boolean; at: number } | undefined
  const refreshKeys = async () => {
    const live = await apiKeys.anyLive()
    keysKnown = { live, at: Date.now() }
    return live
  }
  app.decorateRequest('principal', null as unknown as Principal)
  app.decorateRequest('readsArePublic', false)
  // A callback hook, not an async one: every request passes here, and most need nothing to
  // wait for (the admin token, no credential, the keys' existence known): those are decided
  // in the same turn, without a promise. Only a stale "any keys?" and an API key look-up wait.
  app.addHook('onRequest', (request, _reply, done) => {
    // The route that matched. Unmatched requests get the not-found handler (the playground's
    // index.html or a JSON 404), which holds no data; probes need no database.
    // One read of `routeOptions` (a getter that builds an object each time): its `config`
    // holds the route's url and method too.
    const config = request.routeOptions.config
    const route = config.url
    if (route === undefined || alwaysOpen.has(route)) {
      request.principal = nobody
      done()
      return
    }
    if (token !== undefined) {
      decide(request, config, true, done)
    } else if (keysKnown && Date.now() - keysKnown.at <= keysCheckMs) {
      decide(request, config, keysKnown.live, done)
    } else {
      refreshKeys().then((live) => decide(request, config, live, done), done)
    }
  })
  const decide = (
    request: FastifyRequest,
    config: FastifyContextConfig & { url: string },
    configured: boolean,
    done: (error?: Error) => void,
  ) => {
    const publicReads = options.publicReads ?? !configured
    request.readsArePublic = publicReads
    const anonymous = anonymousPrincipal({ authConfigured: configured, publicReads })
    request.principal = anonymous
    if (!configured) {
      done(refusalOf(request, config))
      return
    }
    const header = request.headers.authorization
    if (header === undefined) {
      done(refusalOf(request, config))
      return
    }
    let found: Principal | Promise<Principal>
    try {
      found = principalOf(header, token, apiKeys)
    } catch (error) {
      done(error as Error)
      return
    }
    if (found instanceof Promise) {
      found.then((principal) => {
        request.principal = principal
        options.credentials?.remember(header, principal.id)
        done(refusalOf(request, config))
      }, done)
      return
    }
    request.principal = found
    options.credentials?.remember(header, found.id)
    done(refusalOf(request, config))
  }
  // The key cache is per process: a key made here counts at once.
  app.decorate('noteApiKeysChanged', () => {
    keysKnown = undefined
    options.credentials?.forget()
  })
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Forget whether API keys exist (after one is made or revoked). */
    noteApiKeysChanged(): void
  }
}

/**
 * The principal a present `Authorization` header names: at once for the admin token, a
 * promise for an API key (looked up); throws 401 for anything else.
 */
function principalOf(
  header: string,
  token: string | undefined,
  apiKeys: ApiKeysRepository,
): Principal | Promise<Principal> {
  const given = bearerTokenOf(header)
  if (given === undefined) {
    throw new HttpError(
      401,
      'UNAUTHORIZED',
      'The Authorization header is not "Bearer <credential>": send the API token or an API key that way.',
    )
  }
  if (token !== undefined && sameSecret(given, token)) return adminPrincipal
  if (given.startsWith(API_KEY_PREFIX)) {
    return apiKeys.findByKey(given).then((key) => {
      if (key) return { kind: 'key', id: `key:${key.id}`, name: key.name, scopes: key.scopes }
      throw unknownCredential()
    })
  }
  throw unknownCredential()
}

function unknownCredential(): HttpError {
  return new HttpError(
    401,
    'UNAUTHORIZED',
    'The bearer credential is neither the API token nor a live API key.',
  )
}

/** The 401 or 403 for a principal that lacks the route's access; undefined when it has it. */
function refusalOf(
  request: FastifyRequest,
  config: FastifyContextConfig & { url: string },
): HttpError | undefined {
  const access = accessOf(request.method, config)
  if (access === 'public' || hasScope(request.principal, access)) return undefined
  if (request.principal.kind === 'anonymous') {
    return new HttpError(
      401,
      'UNAUTHORIZED',
      'This route needs a bearer credential: the API token or an API key.',
      { scope: access },
    )
  }
  return new HttpError(
    403,
    'FORBIDDEN',
    `This route needs the "${access}" scope, which the key "${request.principal.name}" does not have.`,
    { scope: access, scopes: request.principal.scopes },
  )
}

function accessOf(method: string, config: FastifyContextConfig & { url: string }): RouteAccess {
  if (config.access) return config.access
  // The playground's own files are no API.
  if (!isApiPath(config.url)) return 'public'
  return readMethods.has(method) || config.readOnly === true ? 'read' : 'run'
}

/** Paths the server answers itself (everything else may be the playground's). */
export function isApiPath(path: string): boolean {
  return (
    path.startsWith('/api/') ||
    path.startsWith('/agent/') ||
    path.startsWith('/a2a') ||
    path === '/mcp' ||
    path.startsWith('/docs') ||
    path.startsWith('/.well-known/') ||
    path === '/health' ||
    path === '/ready'
  )
}
