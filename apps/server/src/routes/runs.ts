import { randomUUID } from 'node:crypto'
import { Budget } from '@baton/core'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { assertOwned, listedOwner } from '../auth/owned'
import type { StoredRun } from '../db/runs-repository'
import { NotFoundError } from '../http/http-errors'
import { answerIdempotently } from '../http/idempotency'
import { eventStreamResponse, lastEventIdOf, openEventStream } from '../http/server-sent-events'
import { delegationTree } from '../services/delegation-tree'
import { wholeNumberText } from '../settings/whole-number-text'
import { createDeltaQueue } from './delta-queue'
import { Run, RunAccepted, RunList, RunStatus, RunSummary } from './responses/runs'
import { IdParams, Page } from './schemas'

// Strict: a key it does not know (a misspelt `budget`) is refused, not dropped, which would
// start the run without the limits its caller meant.
const StartBody = z.strictObject({
  plan: z
    .union([z.string().min(1), z.record(z.string(), z.unknown())])
    .describe('a MAL plan: YAML or JSON text, or a JSON object'),
  inputs: z.record(z.string(), z.unknown()).default({}),
  budget: Budget.optional(),
})

const ListQuery = Page.extend({ status: RunStatus.optional() })

const EventsQuery = z.object({
  lastEventId: wholeNumberText(z.number().int().min(0)).optional(),
})

/** What the list shows of a run. */
function summary(run: StoredRun) {
  return {
    id: run.id,
    kind: run.kind,
    swarmId: run.swarmId,
    name: typeof run.plan.name === 'string' ? run.plan.name : null,
    status: run.status,
    usage: run.usage,
    /** The process (`BATON_WORKER_NAME`) that executes or executed the run. */
    executedBy: run.executedBy,
    /** The principal that started it (`admin`, `key:<id>`, `anonymous`). */
    owner: run.owner,
    /** Its OpenTelemetry trace id (null when the server records no traces). */
    traceId: run.traceId,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  }
}

/** Streamed runs stay open while a run may still emit events. */
const liveStatuses = new Set(['queued', 'running'])

/**
 * MAL runs: start (202), list, read (steps, usage by wallet, delegation tree), stream events
 * (SSE, resumable with `Last-Event-ID`), cancel, answer an `ask_user`, resume.
 */
export const runRoutes: FastifyPluginAsyncZod = async (app) => {
  const { runs: service, repositories, closing } = app.baton
  const runs = repositories.runs
  // A run is its owner's (and admins'): others get 404, or 403 for a change when reads are public.
  const find = async (id: string, request: FastifyRequest, need: 'read' | 'steer' = 'read') => {
    const run = await runs.find(id)
    if (!run) throw new NotFoundError('run', id)
    assertOwned(request, run.owner, need, 'run', id)
    return run
  }

  /**
   * A paused run's answer or an interrupted run's resume (`go`), answered `202 { id }`: a retry
   * with the request's key gets its first answer, not 409 for the run its first try set going.
   * (Its process dead before the answer was stored, the retry is carried out again, and refused
   * if the run went on.)
   */
  const continueOnce = async (
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    go: (id: string) => Promise<void>,
  ) => {
    await find(id, request, 'steer')
    return answerIdempotently(request, reply, {
      repository: repositories.idempotency,
      id,
      create: async () => {
        await go(id)
        return { status: 202, body: { id } }
      },
    })
  }

  app.post(
    '/api/v1/runs',
    {
      config: { idempotent: true },
      schema: {
        tags: ['runs'],
        summary: 'Start a MAL run',
        body: StartBody,
        response: { 202: RunAccepted },
      },
    },
    async (request, reply) => {
      const { plan, inputs, budget } = request.body
      // A retry with the same Idempotency-Key gets the first run's id, not a second run.
      return answerIdempotently(request, reply, {
        repository: repositories.idempotency,
        id: randomUUID(),
        create: async (runId) => {
          const { id } = await service.start({
            plan,
            inputs,
            ...(budget ? { budget: request.body.budget } : {}),
            owner: request.principal.id,
            id: runId,
          })
          return { status: 202, body: { id } }
        },
        // The request that died stored its run: that run is the answer. If it died before
        // queueing it, the run is queued now (keyed: a run already queued is not queued twice).
        recover: async (id) => {
          if (!(await runs.find(id))) return undefined
          await service.queueNeverStarted({ id })
          return { status: 202, body: { id } }
        },
      })
    },
  )

  app.get(
    '/api/v1/runs',
    {
      schema: {
        tags: ['runs'],
        summary: 'List runs',
        querystring: ListQuery,
        response: { 200: RunList },
      },
    },
    async (request) => {
      const { limit, offset, status } = request.query
      const owner = listedOwner(request)
      const page = await runs.list({
        limit,
        offset,
        ...(status ? { status } : {}),
        ...(owner ? { owner } : {}),
      })
      return { runs: page.runs.map(summary), total: page.total, limit, offset }
    },
  )

  app.get(
    '/api/v1/runs/:id',
    {
      schema: {
        tags: ['runs'],
        summary: 'A run: status, output, steps, usage, tree',
        params: IdParams,
        response: { 200: Run },
      },
    },
    async (request) => {
      const run = await find(request.params.id, request)
      const [steps, events] = await Promise.all([
        runs.steps(run.id),
        runs.events(run.id, -1, 10_000),
      ])
      const template = app.baton.settings.traceUrlTemplate
      return {
        ...summary(run),
        /** Where the run's trace is shown (BATON_TRACE_URL_TEMPLATE), when both are known. */
        traceUrl: template && run.traceId ? template.replaceAll('{traceId}', run.traceId) : null,
        plan: run.plan,
        inputs: run.inputs,
        output: run.output,
        error: run.error,
        question: run.question,
        usageByWallet: run.usageByWallet,
        steps,
        tree: delegationTree(
          run,
          events.map((stored) => stored.event),
        ),
      }
    },
  )

  app.get(
    '/api/v1/runs/:id/events',
    {
      schema: {
        tags: ['runs'],
        summary:
          'The run events as server-sent events (resumable with Last-Event-ID); live step-delta events carry no id and are never stored',
        params: IdParams,
        querystring: EventsQuery,
        response: eventStreamResponse,
      },
    },
    async (request, reply) => {
      const run = await find(request.params.id, request)
      let last = lastEventIdOf(request)
      const sse = openEventStream(request, reply, closing)
      let pumping = false
      let again = false
      // A step's streamed text (live only, never stored) is sent once the stored event it
      // follows has been: a delta waits here while the stored events catch up to it.
      const deltas = createDeltaQueue((delta) => sse.send({ event: delta.type, data: delta }))
      // A reader from the start is given the text streamed before it came first (nothing falls
      // between it and the live text); a reader resuming after an id had that text already,
      // and gets the text from now on.
      const offDeltas = service.notifier.listenDeltas(
        run.id,
        (delta) => {
          deltas.add(delta)
          deltas.sendUpTo(last)
        },
        { fromStart: last === -1 },
      )
      sse.onClose(offDeltas)
      // Reads what is stored after the last event sent: live and late readers alike.
      const pump = async () => {
        if (pumping) {
          again = true
          return
        }
        pumping = true
        try {
          while (sse.open) {
            again = false
            const events = await runs.events(run.id, last)
            for (const stored of events) {
              const flowing = sse.send({
                id: stored.sequence,
                event: stored.type,
                data: stored.event,
              })
              last = stored.sequence
              deltas.sendUpTo(last)
              // Stored events wait for a reader that is behind (they can be read again later):
              // only the live text can put it past the stream's bound.
              if (!flowing) await sse.drained()
            }
            if (events.length > 0) continue
            const current = await runs.find(run.id)
            const live =
              !current || liveStatuses.has(current.status) || service.active().includes(run.id)
            if (!live) {
              // One more read: an event stored between the two reads is not lost.
              const tail = await runs.events(run.id, last)
              if (tail.length > 0) continue
              sse.end()
            }
            if (!again) break
          }
        } catch (error) {
          request.log.warn({ err: error }, 'run event stream failed')
          sse.end()
        } finally {
          pumping = false
        }
      }
      const off = service.notifier.listen(run.id, () => void pump())
      sse.onClose(off)
      await pump()
    },
  )

  app.post(
    '/api/v1/runs/:id/cancel',
    {
      config: { idempotent: true },
      schema: {
        tags: ['runs'],
        summary: 'Cancel a run',
        params: IdParams,
        response: { 200: RunSummary },
      },
    },
    async (request, reply) => {
      const { id } = request.params
      await find(id, request, 'steer')
      // Cancelling a finished run answers it as it is: a retry needs no recovery.
      return answerIdempotently(request, reply, {
        repository: repositories.idempotency,
        id,
        create: async () => ({ status: 200, body: summary(await service.cancel(id)) }),
      })
    },
  )

  app.post(
    '/api/v1/runs/:id/answer',
    {
      config: { idempotent: true },
      schema: {
        tags: ['runs'],
        summary: "Answer a paused run's ask_user question",
        params: IdParams,
        body: z.object({
          answer: z.unknown().refine((value) => value !== undefined, 'is required'),
          /** The question this answers: refused (409) when the run now asks another. */
          question: z.string().optional(),
        }),
        response: { 202: RunAccepted },
      },
    },
    async (request, reply) => {
      const { answer, question } = request.body
      return continueOnce(request, reply, request.params.id, (id) =>
        service.answer(id, answer, question),
      )
    },
  )

  app.post(
    '/api/v1/runs/:id/resume',
    {
      config: { idempotent: true },
      schema: {
        tags: ['runs'],
        summary: 'Resume an interrupted run from its last finished step',
        params: IdParams,
        response: { 202: RunAccepted },
      },
    },
    async (request, reply) => {
      return continueOnce(request, reply, request.params.id, (id) => service.resume(id))
    },
  )
}
