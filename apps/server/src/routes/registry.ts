import { BatonError, parseWallet } from '@baton/core'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { NotFoundError } from '../http/http-errors'
import { WalletParams } from './schemas'

/**
 * The registry contract `ensureRegisteredAgent` relies on: `GET /agent/:wallet` answers the
 * agent (200), 404 when unknown or revoked, 400 for a malformed wallet (before any look-up).
 * Answers come from the server's registry (`app.baton.registry`), whose in-process cache is
 * dropped on register, PATCH and revoke (and, scaled out, on every process's invalidations
 * through Redis), so a hot wallet costs no database query and a revoked one stops at once.
 */
export const registryRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/agent/:wallet',
    {
      config: { access: 'public' },
      schema: { tags: ['registry'], summary: 'Look up a registered agent', params: WalletParams },
    },
    async (request) => {
      const wallet = parseWallet(request.params.wallet)
      try {
        return await app.baton.registry.ensureRegisteredAgent(wallet)
      } catch (error) {
        if (BatonError.isInstance(error) && error.code === 'UNREGISTERED_AGENT') {
          throw new NotFoundError('agent', wallet)
        }
        throw error
      }
    },
  )
}
