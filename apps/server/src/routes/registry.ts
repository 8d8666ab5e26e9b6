import { BatonError, parseWallet } from '@baton/core'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { cachedJsonHeaders, sendKeptJson } from '../http/cached-json-headers'
import { NotFoundError } from '../http/http-errors'
import type { CachedRegistryAnswers } from '../registry/cache-registry-answers'
import { AgentJson } from './responses/agents'
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
      config: { access: 'public', securityHeaders: false },
      schema: {
        tags: ['registry'],
        summary: 'Look up a registered agent',
        params: WalletParams,
        response: { 200: AgentJson },
      },
    },
    // Not an async handler: a kept answer is sent in this turn (no promise, no microtask);
    // only a wallet not kept waits for the registry.
    (request, reply) => {
      reply.headers(cachedJsonHeaders)
      const kept = answers.kept(request.params.wallet)
      if (kept === undefined) {
        return answerFromRegistry(answers, request.params.wallet, request, reply)
      }
      sendKeptJson(kept, request, reply)
      return undefined
    },
  )
}

async function answerFromRegistry(
  answers: CachedRegistryAnswers,
  wallet: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  try {
    sendKeptJson(await answers.answer(wallet), request, reply)
  } catch (error) {
    if (BatonError.isInstance(error) && error.code === 'UNREGISTERED_AGENT') {
      throw new NotFoundError('agent', parseWallet(wallet))
    }
    throw error
  }
}
