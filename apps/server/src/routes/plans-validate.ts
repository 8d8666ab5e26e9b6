import { runValidation, safeParsePlan } from '@baton/mal'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { toErrorResponse } from '../http/error-handler'
import { PlanValidation } from './responses/runs'

const ValidateBody = z.object({
  plan: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .describe('a MAL plan: YAML or JSON text, or a JSON object'),
})

type PlanIssueBody = {
  message: string
  code: string
  path: string
  line: number | null
  column: number | null
}

/**
 * Checks a plan without running it (the playground's editor calls it as one types): 200 with
 * `{ ok: true, plan }` or with `{ ok: false, issues }`, the same issues `POST /api/v1/runs`
 * refuses a plan with. It changes nothing, so under `BATON_API_TOKEN` it counts as a read.
 */
export const planValidateRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/v1/plans/validate',
    {
      config: { readOnly: true },
      schema: {
        tags: ['runs'],
        summary: 'Validate a MAL plan without running it',
        body: ValidateBody,
        response: { 200: PlanValidation },
      },
    },
    async (request): Promise<PlanValidation> => {
      // The run-wide step cap POST /api/v1/runs refuses a plan's worst case with.
      const limits = runValidation(app.baton.settings.runMaxSteps)
      const result = safeParsePlan(request.body.plan, limits)
      if (result.success) {
        return {
          ok: true,
          plan: { name: result.plan.name ?? null, steps: result.plan.steps.length },
        }
      }
      // The refusal `POST /api/v1/runs` answers with, so both list the same issues.
      const { error } = toErrorResponse(result.error).body
      const listed = (error.details.issues ?? []) as Array<Omit<PlanIssueBody, 'code'>>
      const issues: PlanIssueBody[] = listed.map((issue) => ({
        message: issue.message,
        code: error.code,
        path: issue.path,
        line: issue.line ?? null,
        column: issue.column ?? null,
      }))
      return { ok: false, issues }
    },
  )
}
