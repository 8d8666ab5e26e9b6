import { TRUST_TIERS } from '@baton/mal'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { createAgentsSearchRepository } from '../db/agents-search-repository'
import { wholeNumberText } from '../settings/whole-number-text'
import { AgentSearchAnswer } from './responses/agents'

const SearchQuery = z.object({
  q: z.string().trim().min(1, 'must not be empty').max(500).describe('free text'),
  capability: z.string().min(1).optional(),
  type: z.string().min(1).optional(),
  trustTier: z.enum(TRUST_TIERS).optional().describe('the minimum trust tier'),
  limit: wholeNumberText(z.number().int().min(1).max(50).default(10)),
})

/**
 * `GET /api/v1/agents/search`: live agents ranked by full-text relevance (PostgreSQL
 * `tsvector`), the lookup behind `search_agents` in the server's runs.
 */
export const agentSearchRoutes: FastifyPluginAsyncZod = async (app) => {
  const search = createAgentsSearchRepository(app.baton.db)
  app.get(
    '/api/v1/agents/search',
    {
      config: { access: 'public' },
      schema: {
        tags: ['agents'],
        summary: 'Search agents by relevance (never a revoked one)',
        querystring: SearchQuery,
        response: { 200: AgentSearchAnswer },
      },
    },
    async (request) => {
      const { q, capability, type, trustTier, limit } = request.query
      const agents = await search.search({
        query: q,
        limit,
        ...(capability ? { capability } : {}),
        ...(type ? { type } : {}),
        ...(trustTier ? { trustTier } : {}),
      })
      return { agents }
    },
  )
}
