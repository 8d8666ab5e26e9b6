import { BatonError, parseWallet } from '@baton/core'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { NotFoundError } from '../http/http-errors'
import { WalletParams } from './schemas'

/**
 * The headers of the registry's answers, in place of helmet's dozen: this route answers JSON
 * to other servers and scripts, never a document a browser renders, so what protects a page
 * (framing, referrer, COOP, DNS prefetch, the old IE and Flash switches) protects nothing
 * here. Kept: no MIME sniffing of the JSON, no embedding by another site's page, HTTPS only
 * once seen over HTTPS — helmet's own values. `no-cache` with the ETag: a client may keep the
 * answer but asks again each time (a revocation counts at once), and gets a 304 if unchanged.
 */
const answerHeaders = {
  'content-type': 'application/json; charset=utf-8',
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'cache-control': 'no-cache',
}

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
      reply.headers(answerHeaders)
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
