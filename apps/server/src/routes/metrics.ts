import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'

/**
 * `GET /metrics`: the Prometheus text format (runs, steps, model calls, tokens and cost, tool
 * calls, loop-guard escalations, queue depth, active runs, SSE clients, HTTP durations, and
 * the process's own). It needs the `read` scope (the API token or a key) unless
 * `BATON_METRICS_PUBLIC=true` opens it for a scraper.
 */
export const metricsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { metrics, settings } = app.baton
  app.get(
    '/metrics',
    {
      config: { access: settings.metricsPublic ? 'public' : 'read' },
      schema: {
        tags: ['health'],
        summary: 'Prometheus metrics (text format)',
        response: {
          200: {
            description: 'The Prometheus text exposition format, version 0.0.4',
            content: { 'text/plain': { schema: z.string() } },
          },
        },
      },
    },
    async (_request, reply) => {
      reply.type(metrics.contentType)
      return metrics.text()
    },
  )
}
