import { randomUUID } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import { AgentSwarm, Budget, parseWith, unknownKeyIssues, ValidationError } from '@baton/core'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ownsOrAdministers } from '../auth/principal'
import { HttpError, NotFoundError } from '../http/http-errors'
import { answerIdempotently } from '../http/idempotency'
import { mergePatch } from '../http/merge-patch'
import { SwarmAnswer, SwarmDeleted, SwarmList, SwarmRunStarted } from './responses/runs'
import { IdParams } from './schemas'

const SwarmBody = z.record(z.string(), z.unknown()).describe('an AgentSwarm (see @baton/core)')

const ChangeBody = z
  .record(z.string(), z.unknown())
  .describe('the fields of the AgentSwarm to replace (members: the whole `agents` list)')

// `task` is what surface's createHttpSwarmRunner sends; `input` is the documented name.
// Strict, as a plan run's: a misspelt `budget` is refused, not dropped.
const StartBody = z
  .strictObject({
    input: z.string().min(1).optional(),
    task: z.string().min(1).optional(),
    budget: Budget.optional(),
  })
  .refine((body) => body.input !== undefined || body.task !== undefined, {
    message: 'input is required',
    path: ['input'],
  })

/**
 * Swarms: create, list, read, change, delete, and start a run of one (202, events at
 * /runs/:id/events). A swarm belongs to the principal that created it: its owner and admins
 * may change or delete it.
 */
export const swarmRoutes: FastifyPluginAsyncZod = async (app) => {
  const { repositories, runs } = app.baton

  // Every member must be a registered agent: a refusal names each unknown one by its field.
  const assertMembersRegistered = async (swarm: AgentSwarm) => {
    const issues: { path: string; message: string }[] = []
    for (const [index, member] of swarm.agents.entries()) {
      if (!(await repositories.agents.findById(member.agentId))) {
        issues.push({
          path: `agents[${index}].agentId`,
          message: `no registered agent has the id "${member.agentId}"`,
        })
      }
    }
    if (issues.length > 0) throw new ValidationError('swarm', issues)
  }

  // The stored swarm, when the caller may change it: 404 when none has the id, 403 when
  // another principal owns it (swarm definitions are readable by every reader, so saying
  // it exists reveals nothing).
  const ownedSwarm = async (request: FastifyRequest, id: string) => {
    const stored = await repositories.swarms.findOwned(id)
    if (!stored) throw new NotFoundError('swarm', id)
    if (!ownsOrAdministers(request.principal, stored.owner)) {
      throw new HttpError(
        403,
        'FORBIDDEN',
        `Only the principal that created swarm "${id}" (or an admin) may change or delete it.`,
        { what: 'swarm', id },
      )
    }
    return stored.swarm
  }

  app.post(
    '/api/v1/swarms',
    {
      config: { access: 'register', idempotent: true },
      schema: {
        tags: ['swarms'],
        summary: 'Create a swarm',
        body: SwarmBody,
        response: { 201: SwarmAnswer },
      },
    },
    async (request, reply) => {
      // A misspelt key (`minTrustTeir`) is refused: dropped, the swarm would have no trust floor.
      const swarm = parseWith(AgentSwarm, request.body, 'swarm', { unknownKeys: 'refuse' })
      const owner = request.principal.id
      return answerIdempotently(request, reply, {
        repository: repositories.idempotency,
        id: swarm.id,
        create: async () => {
          await assertMembersRegistered(swarm)
          if (!(await repositories.swarms.insert(swarm, owner))) {
            throw new HttpError(409, 'CONFLICT', `A swarm "${swarm.id}" exists already.`, {
              id: swarm.id,
            })
          }
          return { status: 201, body: { swarm } }
        },
        // The request's process died after storing the swarm: it is there, as asked, the
        // caller's.
        recover: async (id) => {
          const stored = await repositories.swarms.findOwned(id)
          return stored?.owner === owner && isDeepStrictEqual(stored.swarm, swarm)
            ? { status: 201, body: { swarm: stored.swarm } }
            : undefined
        },
      })
    },
  )
  app.get(
    '/api/v1/swarms',
    { schema: { tags: ['swarms'], summary: 'List swarms', response: { 200: SwarmList } } },
    async () => ({ swarms: await repositories.swarms.list() }),
  )
  app.get(
    '/api/v1/swarms/:id',
    {
      schema: {
        tags: ['swarms'],
        summary: 'A swarm',
        params: IdParams,
        response: { 200: SwarmAnswer },
      },
    },
    async (request) => {
      const swarm = await repositories.swarms.find(request.params.id)
      if (!swarm) throw new NotFoundError('swarm', request.params.id)
      return { swarm }
    },
  )
  app.patch(
    '/api/v1/swarms/:id',
    {
      config: { access: 'register', idempotent: true },
      schema: {
        tags: ['swarms'],
        summary: 'Change a swarm (its owner or an admin)',
        params: IdParams,
        body: ChangeBody,
        response: { 200: SwarmAnswer },
      },
    },
    async (request, reply) => {
      const { id } = request.params
      const changes = request.body
      // A retry with the request's key gets its first answer: a change made meanwhile by
      // another request is not undone by this one's second try.
      return answerIdempotently(request, reply, {
        repository: repositories.idempotency,
        id,
        create: async () => {
          const current = await ownedSwarm(request, id)
          // A key no swarm has, at any depth (a member's misspelt `weight`), is named, not dropped.
          const unknown = unknownKeyIssues(AgentSwarm, changes)
          const issues =
            'id' in changes && changes.id !== id
              ? [
                  { path: 'id', message: `a swarm's id cannot change (this one is "${id}")` },
                  ...unknown,
                ]
              : unknown
          if (Object.keys(changes).length === 0) {
            issues.push({ path: '', message: 'a change names at least one field of the swarm' })
          }
          if (issues.length > 0) throw new ValidationError('swarm change', issues)
          // A JSON Merge Patch (RFC 7396), as an agent's change is: `null` clears an optional field
          // (back to its default, if it has one); on a required one the schema refuses it, naming
          // the field.
          const changed = (swarm: AgentSwarm) =>
            parseWith(
              AgentSwarm,
              { ...(mergePatch(swarm, changes) as Record<string, unknown>), id },
              'swarm',
            )
          // Only a change of members is checked again: a swarm whose member was revoked since
          // can still be renamed or given another strategy. (Members are replaced whole, so the
          // swarm as read shows them as they will be.)
          if ('agents' in changes) await assertMembersRegistered(changed(current))
          // Applied to the swarm as stored when written: a change made meanwhile by another
          // request stays.
          const swarm = await repositories.swarms.change(id, changed)
          if (!swarm) throw new NotFoundError('swarm', id)
          return { status: 200, body: { swarm } }
        },
      })
    },
  )
  app.delete(
    '/api/v1/swarms/:id',
    {
      config: { access: 'register', idempotent: true },
      schema: {
        tags: ['swarms'],
        summary: 'Delete a swarm (its owner or an admin); its runs stay',
        params: IdParams,
        response: { 200: SwarmDeleted },
      },
    },
    async (request, reply) => {
      const { id } = request.params
      const deleted = { status: 200, body: { deleted: id } }
      return answerIdempotently(request, reply, {
        repository: repositories.idempotency,
        id,
        create: async () => {
          await ownedSwarm(request, id)
          if (!(await repositories.swarms.remove(id))) throw new NotFoundError('swarm', id)
          return deleted
        },
        // The request's process died after deleting it: it is gone, as asked.
        recover: async () => ((await repositories.swarms.find(id)) ? undefined : deleted),
      })
    },
  )
  app.post(
    '/api/v1/swarms/:id/runs',
    {
      config: { idempotent: true },
      schema: {
        tags: ['swarms'],
        summary: 'Start a swarm run',
        params: IdParams,
        body: StartBody,
        response: { 202: SwarmRunStarted },
      },
    },
    async (request, reply) => {
      const swarm = await repositories.swarms.find(request.params.id)
      if (!swarm) throw new NotFoundError('swarm', request.params.id)
      const task = (request.body.input ?? request.body.task)!
      const { budget } = request.body
      const started = (id: string) => ({ status: 202, body: { run: { id }, runId: id } })
      // A retry with the same Idempotency-Key gets the first swarm run, not a second one (as
      // `POST /api/v1/runs`).
      return answerIdempotently(request, reply, {
        repository: repositories.idempotency,
        id: randomUUID(),
        create: async (id) =>
          started(
            (
              await runs.startSwarm({
                swarm,
                task,
                ...(budget ? { budget } : {}),
                owner: request.principal.id,
                id,
              })
            ).id,
          ),
        // The request that died stored its run: that run is the answer, queued now if it had
        // not been (keyed: a run already queued is not queued twice).
        recover: async (id) => {
          if (!(await repositories.runs.find(id))) return undefined
          await runs.queueNeverStarted({ id })
          return started(id)
        },
      })
    },
  )
}
