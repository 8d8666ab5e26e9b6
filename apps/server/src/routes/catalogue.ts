import { defaultPriceTable } from '@baton/core'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { ModelCatalogue, ToolCatalogue } from './responses/agents'

/**
 * What agents registered here may use: `GET /api/v1/tools` (every tool the server can grant:
 * built-in, the operator's module, MCP servers') and `GET /api/v1/models` (the configured
 * providers and the model ids it knows prices for; `offline` always).
 */
export const catalogueRoutes: FastifyPluginAsyncZod = async (app) => {
  const { tools, models } = app.baton
  app.get(
    '/api/v1/tools',
    {
      schema: {
        tags: ['agents'],
        summary: 'Every tool the server can grant an agent',
        response: { 200: ToolCatalogue },
      },
    },
    async () => tools.list(),
  )
  app.get(
    '/api/v1/models',
    {
      schema: {
        tags: ['agents'],
        summary: 'The configured model providers and known model ids',
        response: { 200: ModelCatalogue },
      },
    },
    async () => {
      const prices = models.prices ?? defaultPriceTable
      return {
        providers: models.providers().map((provider) => ({
          provider,
          models: [
            ...new Set([
              ...(provider === 'offline' ? ['offline:default'] : []),
              ...Object.keys(prices).filter(
                (key) => key.startsWith(`${provider}:`) && !key.endsWith(':*'),
              ),
            ]),
          ],
        })),
      }
    },
  )
}
