import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { NotFoundError } from '../http/http-errors'
import { Plan, PlanList } from './responses/runs'
import { IdParams } from './schemas'

/** Saved plans (the seeded examples and any added later), readable by id. */
export const planRoutes: FastifyPluginAsyncZod = async (app) => {
  const { plans } = app.baton.repositories
  app.get(
    '/api/v1/plans',
    { schema: { tags: ['runs'], summary: 'Saved plans', response: { 200: PlanList } } },
    async () => ({ plans: await plans.list() }),
  )
  app.get(
    '/api/v1/plans/:id',
    {
      schema: {
        tags: ['runs'],
        summary: 'A saved plan',
        params: IdParams,
        response: { 200: Plan },
      },
    },
    async (request) => {
      const plan = await plans.find(request.params.id)
      if (!plan) throw new NotFoundError('plan', request.params.id)
      return plan
    },
  )
}
