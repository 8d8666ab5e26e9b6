import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { isDatabaseReachable } from '../db/open-database'
import { HttpError } from '../http/http-errors'

/** `GET /health` (the process answers) and `GET /ready` (the database answers too). */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/health',
    { schema: { tags: ['health'], summary: 'Liveness' }, logLevel: 'warn' },
    async () => ({
      status: 'ok',
    }),
  )
  app.get(
    '/ready',
    { schema: { tags: ['health'], summary: 'Readiness (database reachable)' }, logLevel: 'warn' },
    async () => {
      if (!(await isDatabaseReachable(app.baton.db))) {
        throw new HttpError(503, 'NOT_READY', 'The database does not answer.')
      }
      return { status: 'ready' }
    },
  )
}
