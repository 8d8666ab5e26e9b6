import { createEnvelope, Envelope, isCompleteEnvelope, SendInput } from '@baton/comm'
import { Budget } from '@baton/core'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { openEventStream } from '../http/server-sent-events'

const CorrelationParams = z.object({ correlationId: z.string().min(1) })
const EscalationQuery = z.object({ status: z.enum(['open', 'allowed', 'stopped']).optional() })

/**
 * The bus: send (a direct message to a hosted agent runs it, and it replies in the same
 * correlation), conversations, a live stream of envelopes, and the loop guard's escalations.
 */
export const busRoutes: FastifyPluginAsyncZod = async (app) => {
  const { bus, repositories, agentHost, closing } = app.baton
  const host = agentHost as typeof agentHost & {
    listen?: (agentId: string) => void
    grant?: (envelopeId: string, budget: z.input<typeof Budget>) => void
  }
  // The sender may grant the recipient a budget for this message (else the server's default).
  const MessageBody = z.union([
    Envelope.extend({ budget: Budget.optional() }),
    SendInput.extend({ budget: Budget.optional() }),
  ])

  app.post(
    '/api/v1/messages',
    {
      schema: {
        tags: ['bus'],
        summary: 'Send a message on the bus',
        body: MessageBody,
      },
    },
    async (request, reply) => {
      const { budget, ...message } = request.body
      host.listen?.(message.to.agentId)
      const complete = isCompleteEnvelope(message)
        ? (message as Envelope)
        : createEnvelope(message as SendInput)
      // Stored before it travels (and so before the 202): a message that cannot be stored fails
      // the request (507 STORAGE_UNAVAILABLE, 503 DATABASE_UNAVAILABLE) and goes nowhere.
      const stored = await repositories.messages.save(complete)
      if (budget) host.grant?.(complete.id, budget)
      let envelope: Envelope
      try {
        envelope = await bus.send(complete)
      } catch (error) {
        // Refused (the loop guard, a closed bus): it was never sent, so it is not kept either.
        if (stored) {
          await repositories.messages.remove(complete.id).catch((removeError: unknown) => {
            request.log.warn({ err: removeError }, 'forgetting a refused message failed')
          })
        }
        throw error
      }
      return reply.status(202).send({ envelope })
    },
  )

  app.get(
    '/api/v1/conversations/:correlationId',
    {
      schema: {
        tags: ['bus'],
        summary: 'Every message of a conversation',
        params: CorrelationParams,
      },
    },
    async (request) => {
      const { correlationId } = request.params
      return {
        correlationId,
        hops: bus.hops(correlationId),
        messages: await repositories.messages.conversation(correlationId),
      }
    },
  )

  app.get(
    '/api/v1/messages/stream',
    { schema: { tags: ['bus'], summary: 'New envelopes as server-sent events' } },
    async (request, reply) => {
      const sse = openEventStream(request, reply, closing)
      const offMessage = bus.on('message', (envelope) =>
        sse.send({ id: envelope.id, event: 'message', data: envelope }),
      )
      const offEscalation = bus.on('escalation', (escalation) =>
        sse.send({ event: 'escalation', data: escalation }),
      )
      sse.onClose(() => {
        offMessage()
        offEscalation()
      })
    },
  )

  app.get(
    '/api/v1/escalations',
    {
      schema: {
        tags: ['bus'],
        summary: 'Escalations of the loop guard',
        querystring: EscalationQuery,
      },
    },
    async (request) => {
      // The limit a held chain went past, so a client need not guess it (the playground's Bus view).
      const { maxHops } = bus.loopGuard
      const escalations = await repositories.messages.escalations(request.query.status)
      return { maxHops, escalations: escalations.map((escalation) => ({ ...escalation, maxHops })) }
    },
  )

  app.post(
    '/api/v1/escalations/:id/allow',
    {
      schema: {
        tags: ['bus'],
        summary: 'Let a held chain make more hops',
        params: z.object({ id: z.string().min(1) }),
        body: z.object({ extraHops: z.number().int().min(1).max(100) }),
      },
    },
    async (request) => {
      const escalation = await bus.allow(request.params.id, request.body.extraHops)
      await repositories.messages.saveEscalation(escalation)
      return { escalation }
    },
  )

  app.post(
    '/api/v1/escalations/:id/stop',
    {
      schema: {
        tags: ['bus'],
        summary: 'End a held chain',
        params: z.object({ id: z.string().min(1) }),
        body: z
          .object({ reason: z.string().min(1).default('stopped by a person') })
          .default({ reason: 'stopped by a person' }),
      },
    },
    async (request) => {
      const escalation = await bus.stop(request.params.id, request.body.reason)
      await repositories.messages.saveEscalation(escalation)
      return { escalation }
    },
  )
}
