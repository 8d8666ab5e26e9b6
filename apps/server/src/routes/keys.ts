import { parseWallet } from '@baton/core'
import { TRUST_TIERS } from '@baton/mal'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { SCOPES } from '../auth/principal'
import { HttpError, NotFoundError } from '../http/http-errors'
import { effectiveTrustTier } from '../registry/effective-trust-tier'
import {
  AgentTrustGrant,
  ApiKeyList,
  ApiKeyMade,
  ApiKeyRevoked,
  ApiKeyWhoami,
} from './responses/agents'
import { WalletParams } from './schemas'

/** A key's name: what logs and lists show of it. */
export const KeyName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores')

export const KeyScopes = z.array(z.enum(SCOPES)).min(1, 'must name at least one scope')

/**
 * Principals: who am I (`GET /api/v1/whoami`), API keys (made, listed and revoked with the
 * admin scope; a key is shown once, when it is made) and the trust tier an admin grants an
 * agent (`PUT /api/v1/agents/:wallet/trust-tier`).
 */
export const keyRoutes: FastifyPluginAsyncZod = async (app) => {
  const { repositories, registry } = app.baton
  const admin = { access: 'admin' as const }

  app.get(
    '/api/v1/whoami',
    {
      config: { access: 'public' },
      schema: {
        tags: ['keys'],
        summary: 'The caller’s principal',
        response: { 200: ApiKeyWhoami },
      },
    },
    async (request) => ({ principal: request.principal, readsArePublic: request.readsArePublic }),
  )

  app.post(
    '/api/v1/keys',
    {
      config: admin,
      schema: {
        tags: ['keys'],
        summary: 'Make an API key (admin); the key is in this answer only',
        body: z.object({ name: KeyName, scopes: KeyScopes }),
        response: { 201: ApiKeyMade },
      },
    },
    async (request, reply) => {
      try {
        const made = await repositories.apiKeys.create(request.body)
        app.noteApiKeysChanged()
        return reply.status(201).send(made)
      } catch (error) {
        if ((error as { code?: string }).code === '23505') {
          throw new HttpError(409, 'CONFLICT', `A key is named "${request.body.name}" already.`, {
            name: request.body.name,
          })
        }
        throw error
      }
    },
  )

  app.get(
    '/api/v1/keys',
    {
      config: admin,
      schema: {
        tags: ['keys'],
        summary: 'The API keys (admin), never the keys',
        response: { 200: ApiKeyList },
      },
    },
    async () => ({ keys: await repositories.apiKeys.list() }),
  )

  app.delete(
    '/api/v1/keys/:id',
    {
      config: admin,
      schema: {
        tags: ['keys'],
        summary: 'Revoke an API key by id or name (admin)',
        params: z.object({ id: z.string().min(1) }),
        response: { 200: ApiKeyRevoked },
      },
    },
    async (request) => {
      if (!(await repositories.apiKeys.revoke(request.params.id))) {
        throw new NotFoundError('API key', request.params.id)
      }
      app.noteApiKeysChanged()
      return { revoked: request.params.id }
    },
  )

  app.put(
    '/api/v1/agents/:wallet/trust-tier',
    {
      config: admin,
      schema: {
        tags: ['agents'],
        summary: 'Grant an agent a trust tier (admin); null takes the grant back',
        params: WalletParams,
        body: z.object({ tier: z.enum(TRUST_TIERS).nullable() }),
        response: { 200: AgentTrustGrant },
      },
    },
    async (request) => {
      const wallet = parseWallet(request.params.wallet)
      if (!(await repositories.agents.grantTrustTier(wallet, request.body.tier))) {
        throw new NotFoundError('agent', wallet)
      }
      registry.invalidate(wallet)
      const trust = (await repositories.agents.trust(wallet))!
      return { wallet, ...trust, effective: effectiveTrustTier(trust.requested, trust.granted) }
    },
  )
}
