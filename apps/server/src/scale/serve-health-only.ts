import type { FastifyInstance } from 'fastify'
import { HttpError } from '../http/http-errors'

// Probes, and the scrape of this worker's own metrics (its queue depth and active runs).
const health = new Set(['/health', '/ready', '/metrics'])

/**
 * A worker-only process (`BATON_ROLE=worker`) executes runs and answers `/health`,
 * `/ready` and `/metrics`; every other request is refused with 404 `WORKER_ONLY`, so a load balancer that
 * sends it traffic by mistake finds out at once.
 *
 * @example
 * if (settings.role === 'worker') serveHealthOnly(app)
 */
export function serveHealthOnly(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0] ?? ''
    if (health.has(path)) return
    throw new HttpError(
      404,
      'WORKER_ONLY',
      'This process only executes runs (BATON_ROLE=worker); send API requests to an api or all process.',
    )
  })
}
