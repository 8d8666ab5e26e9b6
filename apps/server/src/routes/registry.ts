import { BatonError, parseWallet } from '@baton/core'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { cachedJsonHeaders } from '../http/cached-json-headers'
import { NotFoundError } from '../http/http-errors'
import { WalletParams } from './schemas'

/**
 * The registry contract `ensureRegisteredAgent` relies on: `GET /agent/:wallet` answers the
 * agent (200), 404 when unknown or revoked, 400 for a malformed wallet (before any look-up).
 * Answers come from the server's registry (`app.baton.registry`), whose in-process cache is
 * dropped on register, PATCH and revoke (and, scaled out, on every process's invalidations
 * through Redis), so a hot wallet costs no database query and a revoked one stops at once;
 * the answer itself is kept serialised with its ETag (`app.baton.registryAnswers`), dropped
 * with that cache.
 */
export const registryRoutes: FastifyPluginAsyncZod = async (app) => {
  const answers = app.baton.registryAnswers
  app.get(
    '/agent/:wallet',
    {
      helmet: false,
      config: { access: 'public' },
      schema: { tags: ['registry'], summary: 'Look up a registered agent', params: WalletParams },
    },
    async (request, reply) => {
      reply.headers(cachedJsonHeaders)
      try {
        const { body, etag } = await answers.answer(request.params.wallet)
        reply.header('etag', etag)
        if (request.headers['if-none-match'] === etag) return reply.code(304).send()
        return reply.send(body)
      } catch (error) {
        if (BatonError.isInstance(error) && error.code === 'UNREGISTERED_AGENT') {
          throw new NotFoundError('agent', parseWallet(request.params.wallet))
        }
        throw error
      }
    },
  )
}
