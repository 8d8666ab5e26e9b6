import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { HttpError } from '../http/http-errors'
import { Health, HealthReady } from './responses/agents'

/**
 * `GET /health` (the process answers) and `GET /ready` (the database answers in time, Redis
 * too when configured, and the data folder takes writes); 503 `NOT_READY` names what failed.
 */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/health',
    {
      schema: { tags: ['health'], summary: 'Liveness', response: { 200: Health } },
      logLevel: 'warn',
      // Orchestrators' probes are never rate-limited.
      config: { rateLimit: false },
    },
    async () => ({
      status: 'ok' as const,
    }),
  )
  app.get(
    '/ready',
    {
      schema: {
        tags: ['health'],
        summary: 'Readiness (database, Redis when configured, data folder writable)',
        response: { 200: HealthReady },
      },
      logLevel: 'warn',
      config: { rateLimit: false },
    },
    async () => {
      const problems = await app.baton.readiness()
      const failed = Object.entries(problems)
      if (failed.length > 0) {
        throw new HttpError(
          503,
          'NOT_READY',
          `Not ready: ${failed.map(([check, why]) => `${check}: ${why}`).join('; ')}.`,
          { checks: problems },
        )
      }
      return { status: 'ready' as const }
    },
  )
}
