import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'

const SpendQuery = z.object({
  by: z.enum(['wallet', 'run']).default('wallet'),
  since: z.iso.datetime({ offset: true }).optional(),
})

/** `GET /api/v1/spend?by=wallet|run&since=` from the ledger. */
export const spendRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/v1/spend',
    { schema: { tags: ['spend'], summary: 'Spend by wallet or by run', querystring: SpendQuery } },
    async (request) => {
      const { by, since } = request.query
      const rows = await app.baton.repositories.ledger.spend({
        by,
        ...(since ? { since: new Date(since) } : {}),
      })
      const total = rows.reduce(
        (sum, row) => ({
          calls: sum.calls + row.calls,
          tokens: sum.tokens + row.tokens,
          costUsd: Math.round((sum.costUsd + row.costUsd) * 1e12) / 1e12,
        }),
        { calls: 0, tokens: 0, costUsd: 0 },
      )
      return {
        by,
        since: since ?? null,
        spend: rows.map(({ key, ...usage }) => ({ [by]: key, ...usage })),
        total,
      }
    },
  )
}
