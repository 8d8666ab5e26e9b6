import { signRunReceipt } from '@baton/core'
import { buildRunReceipt, parsePlan, type RunEvent, runValidation } from '@baton/mal'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { assertOwned } from '../auth/owned'
import { finalStatuses } from '../db/runs-repository'
import { HttpError, NotFoundError } from '../http/http-errors'
import { Receipt } from './responses/runs'
import { IdParams } from './schemas'

const PAGE = 1000

/**
 * `GET /api/v1/runs/:id/receipt`: the signed receipt of a finished plan run whose plan says
 * `requireReceipt` (or of every finished run, with `BATON_REQUIRE_RECEIPTS`), built from the
 * stored events, so a resumed run's receipt covers all of it. Signing is deterministic: the
 * same run gives the same receipt on every request.
 */
export const runReceiptRoutes: FastifyPluginAsyncZod = async (app) => {
  const { repositories, settings, runtime } = app.baton
  app.get(
    '/api/v1/runs/:id/receipt',
    {
      schema: {
        tags: ['runs'],
        summary: 'The signed receipt of a finished run (verify with verifyRunReceipt)',
        params: IdParams,
        response: { 200: Receipt },
      },
    },
    async (request) => {
      const id = request.params.id
      const run = await repositories.runs.find(id)
      if (!run) throw new NotFoundError('run', id)
      assertOwned(request, run.owner, 'read', 'run', id)
      if (run.kind !== 'plan') {
        throw new HttpError(
          404,
          'RECEIPT_UNAVAILABLE',
          `Run ${id} is a swarm run; receipts are of plan runs.`,
          { runId: id },
        )
      }
      const plan = parsePlan(run.plan, runValidation(settings.runMaxSteps))
      if (plan.requireReceipt !== true && !settings.requireReceipts) {
        throw new HttpError(
          404,
          'RECEIPT_UNAVAILABLE',
          `Run ${id} has no receipt: its plan does not say requireReceipt.`,
          { runId: id },
        )
      }
      if (!finalStatuses.includes(run.status)) {
        throw new HttpError(
          409,
          'RECEIPT_UNAVAILABLE',
          `Run ${id} has no receipt yet: it is ${run.status}.`,
          { runId: id, status: run.status },
        )
      }
      const events: RunEvent[] = []
      for (let after = -1; ; ) {
        const page = await repositories.runs.events(id, after, PAGE)
        for (const stored of page) events.push(stored.event as unknown as RunEvent)
        if (page.length < PAGE) break
        after = page[page.length - 1]!.sequence
      }
      const content = buildRunReceipt({
        plan,
        inputs: run.inputs,
        events,
        usageByWallet: run.usageByWallet,
      })
      return signRunReceipt(content, runtime.signer)
    },
  )
}
