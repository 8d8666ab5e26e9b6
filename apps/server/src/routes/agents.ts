import { isDeepStrictEqual } from 'node:util'
import {
  Agent,
  parseWallet,
  parseWith,
  type TrustTier,
  unknownKeyIssues,
  ValidationError,
} from '@baton/core'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { changeWhileUnchanged } from '../db/change-while-unchanged'
import { cachedJsonHeaders, sendKeptJson } from '../http/cached-json-headers'
import { HttpError, NotFoundError } from '../http/http-errors'
import { answerIdempotently } from '../http/idempotency'
import { mergePatch } from '../http/merge-patch'
import { checkMemoryScope } from '../registry/check-memory-scope'
import { withEffectiveTrustTier } from '../registry/effective-trust-tier'
import { registryIdOf } from '../registry/registry-id'
import { assertSigner, recoverSigners, type SignedChange } from '../signatures/verify-signed-change'
import { checkAgentCard } from '../tools/check-agent-card'
import { AgentAnswer, AgentDetails, AgentPage, AgentRevoked } from './responses/agents'
import { Deadline, HexSignature, Nonce, Page, RegistryIdField, WalletParams } from './schemas'

const AgentBody = z
  .record(z.string(), z.unknown())
  .describe('the agent (see the Agent schema of @baton/core), exactly as signed')

const RegisterBody = z.object({
  agent: AgentBody,
  creatorSignature: HexSignature,
  agentSignature: HexSignature,
  registry: RegistryIdField,
  nonce: Nonce,
  deadline: Deadline,
})

const ChangeBody = z.object({
  changes: z.record(z.string(), z.unknown()),
  signature: HexSignature,
  registry: RegistryIdField,
  nonce: Nonce,
  deadline: Deadline,
})

const RevokeBody = z.object({
  signature: HexSignature,
  registry: RegistryIdField,
  nonce: Nonce,
  deadline: Deadline,
})

const ListQuery = Page.extend({
  capability: z.string().optional(),
  type: z.string().optional(),
  text: z.string().optional(),
})

/** Fields a change may not touch: the identity the signatures vouch for. */
const fixedFields = ['wallet', 'creator', 'createdAt']
/** The agent with its memory scope as stored (`checkMemoryScope` lowers its wallet). */
const scopeLowered = (agent: Agent): Agent => ({
  ...agent,
  memoryScope: agent.memoryScope.toLowerCase(),
})
/** Thrown in a change's transaction to undo it: the agent changed since it was read. */
const changedMeanwhile = new Error('the agent changed since it was read')

/** A unique violation on write means another agent has the id: 409, as the docs say. */
const conflictOnTakenId =
  (id: string) =>
  (error: unknown): never => {
    if ((error as { code?: string }).code === '23505') {
      throw new HttpError(409, 'CONFLICT', `The agent id "${id}" is taken.`, { id })
    }
    throw error
  }

/**
 * Agents: registration signed by the creator and by the agent's wallet (EIP-712), changes
 * and soft revocation signed by the creator, and a list with filters and pages.
 */
export const agentRoutes: FastifyPluginAsyncZod = async (app) => {
  const { repositories, registry, db, settings, runtime, agentPages } = app.baton
  const registryId = registryIdOf({
    registryId: settings.registryId,
    runtimeAddress: runtime.address,
  })

  const useNonce = async (
    nonce: string,
    signer: string,
    executor: Parameters<typeof repositories.agents.useNonce>[2],
  ) => {
    if (!(await repositories.agents.useNonce(nonce, signer, executor))) {
      throw new HttpError(401, 'SIGNATURE_REPLAYED', 'This signature was used already.', { nonce })
    }
  }

  // A change or a revocation: the stored agent as its creator signed it (the tier it asks, not
  // the one it counts as), the tier an admin granted it, and proof that its creator signed
  // this one.
  const creatorChange = async (
    action: SignedChange['action'],
    wallet: SignedChange['wallet'],
    content: unknown,
    body: Pick<SignedChange, 'registry' | 'nonce' | 'deadline'> & { signature: `0x${string}` },
  ) => {
    const stored = await repositories.agents.findSigned(wallet)
    if (!stored) throw new NotFoundError('agent', wallet)
    const { agent: current, granted, record } = stored
    const [signer] = await recoverSigners(
      {
        registry: body.registry,
        action,
        wallet,
        creator: current.creator,
        content,
        nonce: body.nonce,
        deadline: body.deadline,
      },
      [body.signature],
      { registry: registryId, nowMs: Date.now() },
    )
    assertSigner(signer!, current.creator, 'creator')
    return { current, granted, record, signer: signer! }
  }

  app.post(
    '/api/v1/agents',
    {
      config: { access: 'register', idempotent: true },
      schema: {
        tags: ['agents'],
        summary: 'Register an agent (signed by its creator and its own wallet)',
        body: RegisterBody,
        response: { 201: AgentAnswer },
      },
    },
    async (request, reply) => {
      const body = request.body
      // A misspelt key, at any depth, is refused: dropped, the agent would be registered
      // otherwise than its creator signed.
      const parsed = parseWith(Agent, body.agent, 'agent', { unknownKeys: 'refuse' })
      // As every read answers it: a new registration has no grant, so the tier it counts as
      // is at most the default.
      const answer = (agent: Agent, granted: TrustTier | null) => ({
        status: 201,
        body: { agent: withEffectiveTrustTier(agent, granted) },
      })
      // A retry with the request's Idempotency-Key is answered with its first answer, however
      // long after (its signatures are not checked again: the body is the one checked then).
      return answerIdempotently(request, reply, {
        repository: repositories.idempotency,
        id: parsed.wallet,
        create: async () => {
          const agent = await checkMemoryScope(parsed, (wallet) => repositories.agents.find(wallet))
          const [creatorSigner, agentSigner] = await recoverSigners(
            {
              registry: body.registry,
              action: 'register',
              wallet: agent.wallet,
              creator: agent.creator,
              content: body.agent,
              nonce: body.nonce,
              deadline: body.deadline,
            },
            [body.creatorSignature, body.agentSignature],
            { registry: registryId, nowMs: Date.now() },
          )
          assertSigner(creatorSigner!, agent.creator, 'creator')
          assertSigner(agentSigner!, agent.wallet, 'agent wallet')
          // After the signatures: only a real registrant makes the server list its MCP servers.
          await checkAgentCard(app.baton, agent)
          await db
            .transaction()
            .execute(async (trx) => {
              if (await repositories.agents.find(agent.wallet, trx)) {
                throw new HttpError(
                  409,
                  'CONFLICT',
                  `An agent is registered under ${agent.wallet}.`,
                  { wallet: agent.wallet },
                )
              }
              await useNonce(body.nonce, creatorSigner!, trx)
              await repositories.agents.insert(agent, creatorSigner!, trx)
            })
            .catch(conflictOnTakenId(agent.id))
          registry.invalidate(agent.wallet)
          return answer(agent, null)
        },
        // The request's process died after registering: the agent registered as this body
        // asks (the nonce, used in the same transaction, says this body registered it).
        recover: async (wallet) => {
          const stored = await repositories.agents.findSigned(wallet)
          if (!stored || !isDeepStrictEqual(scopeLowered(stored.agent), scopeLowered(parsed))) {
            return undefined
          }
          if (!(await repositories.agents.nonceUsed(body.nonce))) return undefined
          return answer(stored.agent, stored.granted)
        },
      })
    },
  )

  app.get(
    '/api/v1/agents',
    // The directory is public, whatever BATON_PUBLIC_READS says (docs/security.md). Its pages
    // are kept serialised until an agent changes (`agentPages`), and answered with the headers
    // of such answers instead of helmet's (see `cachedJsonHeaders`); the rate limit, the
    // foreign-origin check and the metrics apply as to every route.
    {
      config: { access: 'public', securityHeaders: false },
      schema: {
        tags: ['agents'],
        summary: 'List agents',
        querystring: ListQuery,
        response: { 200: AgentPage },
      },
    },
    async (request, reply) => {
      const { limit, offset, capability, type, text } = request.query
      const page = await agentPages({
        limit,
        offset,
        ...(capability ? { capability } : {}),
        ...(type ? { type } : {}),
        ...(text ? { text } : {}),
      })
      reply.headers(cachedJsonHeaders)
      return sendKeptJson(page, request, reply)
    },
  )

  app.get(
    '/api/v1/agents/:wallet',
    {
      config: { access: 'public' },
      schema: {
        tags: ['agents'],
        summary: 'An agent and its history',
        params: WalletParams,
        response: { 200: AgentDetails },
      },
    },
    async (request) => {
      const wallet = parseWallet(request.params.wallet)
      const agent = await repositories.agents.find(wallet)
      const trust = await repositories.agents.trust(wallet)
      if (!agent || !trust) throw new NotFoundError('agent', wallet)
      return {
        agent,
        // The card's trustTier is the effective one: what was asked, up to what an admin granted.
        trust: { ...trust, effective: agent.agentCard.trustTier },
        history: await repositories.agents.history(wallet),
      }
    },
  )

  app.patch(
    '/api/v1/agents/:wallet',
    {
      config: { access: 'register', idempotent: true },
      schema: {
        tags: ['agents'],
        summary:
          'Change an agent (signed by its creator): `changes` is a JSON Merge Patch (RFC 7396) of its fields',
        params: WalletParams,
        body: ChangeBody,
        response: { 200: AgentAnswer },
      },
    },
    async (request, reply) => {
      const wallet = parseWallet(request.params.wallet)
      const body = request.body
      const change = async () => {
        const signed = await creatorChange('update', wallet, body.changes, body)
        const { granted, signer } = signed
        const touched = fixedFields.filter((field) => field in body.changes)
        if (touched.length > 0) {
          throw new HttpError(
            400,
            'VALIDATION_FAILED',
            `A change may not set ${touched.join(', ')}.`,
            {
              fields: touched,
            },
          )
        }
        const unknown = unknownKeyIssues(Agent, body.changes)
        if (unknown.length > 0) throw new ValidationError('agent change', unknown)
        // A JSON Merge Patch (RFC 7396): `{ agentCard: { tagline } }` changes the tagline and
        // keeps the rest of the card (its asked trust tier, examples and schemas); `null`
        // removes a field, back to its default.
        const changed = async (current: Agent) => {
          // `provider` is the model's own (the schema derives it and refuses any other): a change
          // of model to another provider derives it again, unless the change names it too.
          const { provider: _derived, ...withoutProvider } = current
          const base =
            'model' in body.changes && !('provider' in body.changes) ? withoutProvider : current
          let agent = parseWith(
            Agent,
            {
              ...(mergePatch(base, body.changes) as Record<string, unknown>),
              updatedAt: new Date().toISOString(),
            },
            'agent',
          )
          // Only a scope the change sets is checked: sharing an agent's memory that was allowed
          // stays allowed when that agent is later revoked.
          if ('memoryScope' in body.changes) {
            agent = await checkMemoryScope(agent, (found) => repositories.agents.find(found))
          }
          return agent
        }
        // Applied to the agent as stored when written: a change made meanwhile by another
        // request (read after this one's) stays, as in a swarm's change. The nonce is used by
        // the write that holds, once.
        const updated = await changeWhileUnchanged({
          what: 'agent',
          id: wallet,
          first: { agent: signed.current, granted, record: signed.record },
          read: () => repositories.agents.findSigned(wallet),
          apply: async (stored, attempt) => {
            const agent = await changed(stored.agent)
            if (attempt === 1) {
              // Only what the change touches is checked again: a card stored before a tool went
              // away can still be changed in other ways.
              await checkAgentCard(app.baton, {
                ...('model' in body.changes ? { model: agent.model } : {}),
                ...('tools' in body.changes ? { tools: agent.tools } : {}),
              })
            }
            return agent
          },
          write: (agent, stored) =>
            db
              .transaction()
              .execute(async (trx) => {
                await useNonce(body.nonce, signer, trx)
                // Nothing written (and the nonce not used) when the agent changed since its read.
                if (!(await repositories.agents.update(agent, signer, stored.record, trx))) {
                  throw changedMeanwhile
                }
              })
              .then(
                () => true,
                (error: unknown) => {
                  if (error === changedMeanwhile) return false
                  return conflictOnTakenId(agent.id)(error)
                },
              ),
        })
        // Revoked meanwhile: a change never brings it back.
        if (!updated) throw new NotFoundError('agent', wallet)
        registry.invalidate(wallet)
        // As every read answers it: the tier it counts as.
        return { status: 200, body: { agent: withEffectiveTrustTier(updated, granted) } }
      }
      return answerIdempotently(request, reply, {
        repository: repositories.idempotency,
        id: wallet,
        create: change,
        // The request's process died after the change: its nonce, used in the change's own
        // transaction, says it was made; the agent as it is now is the answer.
        recover: async () => {
          if (!(await repositories.agents.nonceUsed(body.nonce))) return undefined
          const stored = await repositories.agents.findSigned(wallet)
          return stored
            ? { status: 200, body: { agent: withEffectiveTrustTier(stored.agent, stored.granted) } }
            : undefined
        },
      })
    },
  )

  app.delete(
    '/api/v1/agents/:wallet',
    {
      config: { access: 'register', idempotent: true },
      schema: {
        tags: ['agents'],
        summary: 'Revoke an agent (signed by its creator); its history stays',
        params: WalletParams,
        body: RevokeBody,
        response: { 200: AgentRevoked },
      },
    },
    async (request, reply) => {
      const wallet = parseWallet(request.params.wallet)
      const body = request.body
      const revoked = { status: 200, body: { revoked: wallet } }
      return answerIdempotently(request, reply, {
        repository: repositories.idempotency,
        id: wallet,
        create: async () => {
          const { current, signer } = await creatorChange('revoke', wallet, {}, body)
          await db.transaction().execute(async (trx) => {
            await useNonce(body.nonce, signer, trx)
            await repositories.agents.revoke(current, signer, trx)
          })
          registry.invalidate(wallet)
          return revoked
        },
        // The request's process died after revoking: its nonce was used by the revocation.
        recover: async () =>
          (await repositories.agents.nonceUsed(body.nonce)) &&
          !(await repositories.agents.find(wallet))
            ? revoked
            : undefined,
      })
    },
  )
}
