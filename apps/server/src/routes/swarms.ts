import { AgentSwarm, Budget, parseWith } from '@baton/core'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { HttpError, NotFoundError } from '../http/http-errors'
import { IdParams } from './schemas'

const SwarmBody = z.record(z.string(), z.unknown()).describe('an AgentSwarm (see @baton/core)')

// `task` is what surface's createHttpSwarmRunner sends; `input` is the documented name.
const StartBody = z
  .object({
    input: z.string().min(1).optional(),
    task: z.string().min(1).optional(),
    budget: Budget.optional(),
  })
  .refine((body) => body.input !== undefined || body.task !== undefined, {
    message: 'input is required',
    path: ['input'],
  })

/** Swarms: create, list, read, and start a run of one (202, events at /runs/:id/events). */
export const swarmRoutes: FastifyPluginAsyncZod = async (app) => {
  const { repositories, runs } = app.baton
  app.post(
    '/api/v1/swarms',
    {
      config: { access: 'register' },
      schema: { tags: ['swarms'], summary: 'Create a swarm', body: SwarmBody },
    },
    async (request, reply) => {
      const swarm = parseWith(AgentSwarm, request.body, 'swarm')
      const unknown: string[] = []
      for (const member of swarm.agents) {
        if (!(await repositories.agents.findById(member.agentId))) unknown.push(member.agentId)
      }
      if (unknown.length > 0) {
        throw new HttpError(
          400,
          'VALIDATION_FAILED',
          `No registered agent has the id ${unknown.join(', ')}.`,
          {
            issues: unknown.map((id) => ({ path: 'agents', message: `no agent "${id}"` })),
          },
        )
      }
      if (!(await repositories.swarms.insert(swarm))) {
        throw new HttpError(409, 'CONFLICT', `A swarm "${swarm.id}" exists already.`, {
          id: swarm.id,
        })
      }
      return reply.status(201).send({ swarm })
    },
  )
  app.get('/api/v1/swarms', { schema: { tags: ['swarms'], summary: 'List swarms' } }, async () => ({
    swarms: await repositories.swarms.list(),
  }))
  app.get(
    '/api/v1/swarms/:id',
    { schema: { tags: ['swarms'], summary: 'A swarm', params: IdParams } },
    async (request) => {
      const swarm = await repositories.swarms.find(request.params.id)
      if (!swarm) throw new NotFoundError('swarm', request.params.id)
      return { swarm }
    },
  )
  app.post(
    '/api/v1/swarms/:id/runs',
    {
      schema: { tags: ['swarms'], summary: 'Start a swarm run', params: IdParams, body: StartBody },
    },
    async (request, reply) => {
      const swarm = await repositories.swarms.find(request.params.id)
      if (!swarm) throw new NotFoundError('swarm', request.params.id)
      const task = (request.body.input ?? request.body.task)!
      const { id } = await runs.startSwarm(swarm, task, request.body.budget, request.principal.id)
      return reply.status(202).send({ run: { id }, runId: id })
    },
  )
}
