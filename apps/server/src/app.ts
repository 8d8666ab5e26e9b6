import type { Socket } from 'node:net'
import fastifyCors from '@fastify/cors'
import fastifyRateLimit from '@fastify/rate-limit'
import fastifySwagger from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import Fastify, { type FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { a2aPlugin } from './a2a'
import { KnownCredentials } from './auth/known-credentials'
import { installBodyParsers } from './http/body-parsers'
import { EXPOSED_HEADERS } from './http/cors-headers'
import {
  answerClientError,
  frameworkErrorSender,
  installErrorHandler,
  MAX_PATH_PARAMETER_LENGTH,
} from './http/error-handler'
import { HttpError } from './http/http-errors'
import { installInputChecks } from './http/input-checks'
import { openApiTransform, openApiTransformObject } from './http/openapi-transform'
import { requestIdOf } from './http/request-id'
import { responseSerializer } from './http/response-serializer'
import { RouteMethods } from './http/route-methods'
import { addSecurityHeaders } from './http/security-headers'
import { strictInputCompiler } from './http/strict-inputs'
import { mcpPlugin } from './mcp/mcp-plugin'
import { authenticate } from './plugins/authenticate'
import { servePlayground } from './plugins/playground'
import { refuseForeignOrigins } from './plugins/refuse-foreign-origins'
import { agentRoutes } from './routes/agents'
import { agentSearchRoutes } from './routes/agents-search'
import { busRoutes } from './routes/bus'
import { catalogueRoutes } from './routes/catalogue'
import { healthRoutes } from './routes/health'
import { keyRoutes } from './routes/keys'
import { metricsRoutes } from './routes/metrics'
import { planRoutes } from './routes/plans'
import { planValidateRoutes } from './routes/plans-validate'
import { registryRoutes } from './routes/registry'
import { runFileRoutes } from './routes/run-files'
import { runReceiptRoutes } from './routes/run-receipt'
import { runRoutes } from './routes/runs'
import { runtimeRoutes } from './routes/runtime'
import { spendRoutes } from './routes/spend'
import { swarmRoutes } from './routes/swarms'
import { serveHealthOnly } from './scale/serve-health-only'
import type { BatonServices } from './services'
import { createServices, shutdownDrainMs } from './services'
import type { Settings } from './settings'

export type BuildAppOptions = {
  settings: Settings
  /** Pino options, or false for no logs (default: JSON logs at `settings.logLevel`). */
  logger?: boolean | Record<string, unknown>
  /** An in-memory database starts from this PGlite dump (tests). */
  pgliteTemplate?: Blob
}

/** Log paths whose values never reach a log line. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.body.creatorSignature',
  'req.body.agentSignature',
  'req.body.signature',
  '*.apiKey',
  '*.token',
  '*.OPENAI_API_KEY',
  '*.ANTHROPIC_API_KEY',
]

/**
 * Builds the fastify app from its plugins and services, without listening (tests use
 * `app.inject()` and real listens alike). `app.close()` closes the services too.
 *
 * @example
 * const app = await buildApp({ settings: readSettings(process.env) })
 * await app.listen({ port: 8787, host: '127.0.0.1' })
 */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { settings } = options
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: settings.logLevel,
            redact: { paths: redactedPaths, censor: '[redacted]' },
            ...(typeof options.logger === 'object' ? options.logger : {}),
          },
    bodyLimit: settings.bodyLimit,
    // What the router refuses before any route runs answers in Baton's error shape too. A
    // trailing slash names the same route (`/api/v1/agents/` is the list, not an agent
    // whose wallet is empty; `/health/` the probe, not the playground).
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH, ignoreTrailingSlash: true },
    // One id per request in its log lines and its answer (`x-request-id`), a proxy's kept.
    genReqId: requestIdOf,
    frameworkErrors: frameworkErrorSender({ corsOrigins: settings.corsOrigins }),
    clientErrorHandler: answerClientError,
    ...(settings.trustProxy !== undefined ? { trustProxy: settings.trustProxy } : {}),
    // Requests that arrive while the server drains get Baton's own 503 (the hook below), on
    // the connection they came on, which fastify then closes ("Connection: close").
    return503OnClosing: false,
    // The close waits for the drain (preClose below); avvio bounds every hook by this timeout.
    pluginTimeout: shutdownDrainMs + 20_000,
  }).withTypeProvider<ZodTypeProvider>()
  // Before any route is added: it keeps every route's methods, for the 405s.
  const routeMethods = new RouteMethods(app)
  app.setValidatorCompiler(strictInputCompiler)
  app.setSerializerCompiler(responseSerializer({ check: settings.checkResponses }))
  installErrorHandler(app)
  installInputChecks(app)
  installBodyParsers(app)

  const services = await createServices(
    settings,
    app.log,
    options.pgliteTemplate ? { pgliteTemplate: options.pgliteTemplate } : {},
  )
  app.decorate('baton', services as BatonServices)
  let draining = false
  const sockets = new Set<Socket>()
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  // Callback hooks where nothing is awaited (here and in the shared hooks below): an async
  // hook costs every request a promise and a turn of the microtask queue.
  // Every answer's own headers, the 503s of a drain included: its id, and helmet's.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    addSecurityHeaders(request, reply)
    done(draining ? new HttpError(503, 'SHUTTING_DOWN', 'The server is shutting down.') : undefined)
  })
  if (settings.role === 'worker') serveHealthOnly(app)
  app.addHook('preClose', async () => {
    draining = true
    // Streams never end by themselves; they would hold the close open.
    services.beginShutdown()
    // The runs drain before the HTTP server closes: until then it still answers (503) on the
    // connections clients hold, instead of resetting them.
    await services.drain()
    // Sockets with no request in flight (kept alive, or opened and not yet used) would hold the
    // close open until their clients drop them: they are closed now and as they fall idle.
    const closeIdle = () => {
      for (const socket of sockets) {
        if (!(socket as { _httpMessage?: unknown })._httpMessage) socket.destroy()
      }
    }
    closeIdle()
    const idle = setInterval(closeIdle, 100)
    idle.unref()
    app.server.once('close', () => clearInterval(idle))
  })
  app.addHook('onClose', async () => {
    await services.close()
  })
  // Labelled by route pattern (`/api/v1/runs/:id`), never by raw URL: ids would explode the series.
  app.addHook('onResponse', (request, reply, done) => {
    services.metrics.httpRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    )
    done()
  })

  // Only with origins to allow: with none (the default) the plugin would still run its hook on
  // every request, to add nothing, and its OPTIONS route would answer the same 404 as no route.
  if (settings.corsOrigins.length > 0) {
    await app.register(fastifyCors, {
      origin: settings.corsOrigins,
      // What a page there may read beyond the few headers CORS lets through.
      exposedHeaders: [...EXPOSED_HEADERS],
    })
  }
  // CORS stops a foreign page reading answers, not sending requests: those are refused here.
  refuseForeignOrigins(app, {
    corsOrigins: settings.corsOrigins,
    publicUrl: settings.publicUrl,
    listening: { address: settings.host, port: settings.port },
  })
  // Each API key (and the admin token) its own allowance once it has authenticated here; any
  // other request, its client's address (see KnownCredentials).
  const credentials = new KnownCredentials()
  await app.register(fastifyRateLimit, {
    // Not the routes' own hooks (they run after the app's, so after authentication: a request
    // with a made-up credential would be refused 401 before it was ever counted): the app's
    // hook below, first of all, for every request but the probes.
    global: false,
    max: settings.rateLimit.max,
    timeWindow: settings.rateLimit.windowMs,
    keyGenerator: (request) => credentials.principalOf(request.headers.authorization) ?? request.ip,
    // The probes opt out on their routes (`config.rateLimit: false`, read by the hook below):
    // an allow-list function would be awaited on every other request.
    errorResponseBuilder: (_request, context) =>
      new HttpError(
        429,
        'RATE_LIMITED',
        `Too many requests: at most ${context.max} per ${context.after}.`,
        {
          max: context.max,
        },
      ),
  })
  const limit = app.rateLimit()
  // The plugin's handler is async (it throws the 429); its promise is handed on, not awaited
  // in another async function of ours.
  app.addHook('onRequest', function rateLimited(request, reply, done) {
    if (request.routeOptions.config.rateLimit === false) return done()
    limit.call(this, request, reply).then(() => done(), done)
  })
  authenticate(app, {
    token: settings.apiToken,
    publicReads: settings.publicReads,
    apiKeys: services.repositories.apiKeys,
    credentials,
  })

  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'Baton server',
        description: 'The registry, agents, swarms, MAL runs, the bus and spend.',
        version: '0.1.0',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
    },
    transform: openApiTransform,
    // Response schemas given an id (`.meta({ id: 'Agent' })`) are components, named once.
    transformObject: openApiTransformObject,
  })
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' })

  await app.register(healthRoutes)
  await app.register(registryRoutes)
  await app.register(agentSearchRoutes)
  await app.register(agentRoutes)
  await app.register(swarmRoutes)
  await app.register(planRoutes)
  await app.register(planValidateRoutes)
  await app.register(runRoutes)
  await app.register(runFileRoutes)
  await app.register(runReceiptRoutes)
  await app.register(runtimeRoutes)
  await app.register(catalogueRoutes)
  await app.register(busRoutes)
  await app.register(spendRoutes)
  await app.register(keyRoutes)
  await app.register(metricsRoutes)
  // The A2A plugin owns /a2a/* and the server-wide /.well-known/agent-card.json.
  await app.register(a2aPlugin)
  await app.register(mcpPlugin)
  await servePlayground(app, settings.playgroundDir, routeMethods)
  return app
}
