import { parseWallet } from '@baton/core'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { NotFoundError } from '../http/http-errors'
import { WalletParams } from './schemas'

/**
 * The registry contract `ensureRegisteredAgent` relies on: `GET /agent/:wallet` answers the
 * agent (200), 404 when unknown or revoked, 400 for a malformed wallet (before any look-up).
 */
export const registryRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/agent/:wallet',
    { schema: { tags: ['registry'], summary: 'Look up a registered agent', params: WalletParams } },
    async (request) => {
      const wallet = parseWallet(request.params.wallet)
      const agent = await app.baton.repositories.agents.find(wallet)
      if (!agent) throw new NotFoundError('agent', wallet)
      return agent
    },
  )
}
