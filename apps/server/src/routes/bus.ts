import {
  assertEnvelopeSignature,
  createEnvelope,
  Envelope,
  type Escalation,
  isCompleteEnvelope,
  SendInput,
} from '@baton/comm'
import { Budget, formatPath, unknownKeys, ValidationError } from '@baton/core'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { assertOwned, canRead } from '../auth/owned'
import { hasScope } from '../auth/principal'
import { assertKnownRecipient } from '../bus/assert-known-recipient'
import { HttpError } from '../http/http-errors'
import { answerIdempotently, idempotencyKeyHeader } from '../http/idempotency'
import { eventStreamResponse, openEventStream } from '../http/server-sent-events'
import { keepsUnknownKeys } from '../http/strict-inputs'
import { wholeNumberText } from '../settings/whole-number-text'
import {
  Conversation,
  ConversationList,
  EscalationList,
  EscalationResolved,
  MessageSent,
} from './responses/bus'

const CorrelationParams = z.object({ correlationId: z.string().min(1) })
const ConversationsQuery = z.object({
  limit: wholeNumberText(z.number().int().min(1).max(100).default(20)),
})
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
  // A complete envelope may carry a newer sender's fields, and is read as zod reads it.
  const SendBody = SendInput.extend({ budget: Budget.optional() })
  const MessageBody = keepsUnknownKeys(
    z.union([Envelope.extend({ budget: Budget.optional() }), SendBody]),
  )
  /**
   * A send input is written for this route: a key it does not know (a misspelt `budget` or
   * `correlationId`) is refused, not dropped, which would run the recipient without the
   * limits or outside the conversation its sender meant. (Before the union is validated,
   * whose two failed options would be told as one "Invalid input".)
   */
  const refuseUnknownSendKeys = async (request: FastifyRequest) => {
    const body = request.body
    if (typeof body !== 'object' || body === null || 'id' in body) return
    const unknown = unknownKeys(SendBody, body)
    if (unknown.length === 0) return
    // Told as every other body's unknown key is (see `strictInputCompiler`).
    throw new ValidationError(
      'request',
      unknown.map((path) => ({
        path: ['body', formatPath(path.slice(0, -1))].filter(Boolean).join('.'),
        message: `Unrecognized key: "${String(path.at(-1))}"`,
      })),
    )
  }
  const messages = repositories.messages

  /**
   * Who a message from outside is from. Only the host speaks for a hosted agent, unless the
   * envelope is signed by that agent's wallet; an API key or the admin speaks as itself;
   * the anonymous user of an open server names itself (anything but an agent).
   */
  const senderOf = async (
    request: FastifyRequest,
    message: Envelope | SendInput,
  ): Promise<Envelope['from']> => {
    const agent = await repositories.agents.findById(message.from.agentId)
    if (agent) {
      if (!isCompleteEnvelope(message) || !(message as Envelope).signature) {
        throw new HttpError(
          403,
          'FORBIDDEN',
          `Only the server speaks for the hosted agent "${agent.id}": an envelope from it must be signed by its wallet ${agent.wallet}.`,
          { field: 'from.agentId', agentId: agent.id },
        )
      }
      // SIGNATURE_INVALID (401) unless that wallet signed exactly this envelope.
      await assertEnvelopeSignature(message as Envelope, () => agent.wallet)
      return message.from
    }
    const { principal } = request
    if (principal.kind === 'anonymous') return message.from
    return { agentId: principal.id, agentName: principal.name }
  }

  /** May this request see this conversation (its owner's, admins', or anyone's when reads are public)? */
  const mayRead = async (request: FastifyRequest, correlationId: string) =>
    request.readsArePublic ||
    canRead(request, (await messages.conversationOwner(correlationId)) ?? 'admin')

  app.post(
    '/api/v1/messages',
    {
      config: { idempotent: true },
      preValidation: refuseUnknownSendKeys,
      schema: {
        tags: ['bus'],
        summary: 'Send a message on the bus',
        body: MessageBody,
        response: { 202: MessageSent },
      },
    },
    async (request, reply) => {
      const { budget, ...body } = request.body
      const from = await senderOf(request, body)
      // A recipient nobody would read is refused (404 UNKNOWN_AGENT) before anything is stored.
      await assertKnownRecipient(request, repositories, body)
      const message = { ...body, from }
      const complete = isCompleteEnvelope(message)
        ? (message as Envelope)
        : createEnvelope(message as SendInput)
      // Stored before it travels (and so before the 202): a message that cannot be stored
      // fails the request (507 STORAGE_UNAVAILABLE, 503 DATABASE_UNAVAILABLE), goes nowhere.
      const send = async (envelope: Envelope, stored: boolean) => {
        if (budget) host.grant?.(envelope.id, budget)
        try {
          return await bus.send(envelope)
        } catch (error) {
          // Refused (the loop guard, a closed bus): it was never sent, so it is not kept either.
          if (stored) {
            await repositories.messages.remove(envelope.id).catch((removeError: unknown) => {
              request.log.warn({ err: removeError }, 'forgetting a refused message failed')
            })
          }
          throw error
        }
      }
      // The conversation is its first outside sender's; nobody else posts into it.
      if (request.headers[idempotencyKeyHeader] === undefined) {
        host.listen?.(message.to.agentId)
        // The claim and the message in one statement: the only one before the agent runs.
        const { owner, stored } = await messages.claimAndSave(complete, request.principal.id, {
          anyOwner: hasScope(request.principal, 'admin'),
        })
        assertOwned(request, owner, 'steer', 'conversation', complete.correlationId)
        return reply.status(202).send({ envelope: await send(complete, stored) })
      }
      const owner = await messages.claimConversation(complete.correlationId, request.principal.id)
      assertOwned(request, owner, 'steer', 'conversation', complete.correlationId)
      // A retry with the same Idempotency-Key gets the first envelope, not a second message.
      return answerIdempotently(request, reply, {
        repository: repositories.idempotency,
        id: complete.id,
        // Under the id kept with the key: a first request that died before storing it had
        // taken that id (a signed envelope's is its own, and the same in every retry).
        create: async (id) => {
          const envelope = id === complete.id ? complete : { ...complete, id }
          host.listen?.(message.to.agentId)
          const stored = await repositories.messages.save(envelope)
          return { status: 202, body: { envelope: await send(envelope, stored) } }
        },
        // The first request died after storing its message: that message is the answer, not a
        // second one. Sent now if the bus had not sent it (the bus answers a message it has
        // admitted with itself, so a send whose mark was lost is not delivered twice).
        recover: async (id) => {
          const found = await repositories.messages.find(id)
          if (!found) return undefined
          if (found.sent) return { status: 202, body: { envelope: found.envelope } }
          host.listen?.(found.envelope.to.agentId)
          return { status: 202, body: { envelope: await send(found.envelope, false) } }
        },
      })
    },
  )

  app.get(
    '/api/v1/conversations',
    {
      schema: {
        tags: ['bus'],
        summary: 'The newest conversations the caller may read (correlation id, last message time)',
        querystring: ConversationsQuery,
        response: { 200: ConversationList },
      },
    },
    async (request) => {
      // The newest stored messages, newest conversation first, each conversation once.
      const recent = (await messages.since(new Date(0), 2_000)).reverse()
      const seen = new Map<string, string>()
      for (const envelope of recent) {
        if (!seen.has(envelope.correlationId)) seen.set(envelope.correlationId, envelope.createdAt)
      }
      const conversations: { correlationId: string; lastAt: string }[] = []
      for (const [correlationId, lastAt] of seen) {
        if (conversations.length >= request.query.limit) break
        const owner = (await messages.conversationOwner(correlationId)) ?? 'admin'
        if (canRead(request, owner)) conversations.push({ correlationId, lastAt })
      }
      return { conversations }
    },
  )

  app.get(
    '/api/v1/conversations/:correlationId',
    {
      schema: {
        tags: ['bus'],
        summary:
          'Every message of a conversation, and what each answer in it cost per wallet (the answering agent and its sub-agents)',
        params: CorrelationParams,
        response: { 200: Conversation },
      },
    },
    async (request) => {
      const { correlationId } = request.params
      const owner = (await messages.conversationOwner(correlationId)) ?? 'admin'
      assertOwned(request, owner, 'read', 'conversation', correlationId)
      return {
        correlationId,
        hops: bus.hops(correlationId),
        messages: await repositories.messages.conversation(correlationId),
        // Per message answered and per wallet: a delegated answer shows who did which part.
        spend: await repositories.ledger.spendOfConversation(correlationId),
      }
    },
  )

  app.get(
    '/api/v1/messages/stream',
    {
      schema: {
        tags: ['bus'],
        summary:
          "New envelopes as server-sent events, and hosted agents' replies as they are written (live `delta` events)",
        response: eventStreamResponse,
      },
    },
    async (request, reply) => {
      const sse = openEventStream(request, reply, closing)
      // A reader sees the conversations it may read, in the order the bus reported them.
      let queue = Promise.resolve()
      const sendIfReadable = (correlationId: string, event: Parameters<typeof sse.send>[0]) => {
        if (request.readsArePublic) return sse.send(event)
        queue = queue
          .then(async () => {
            if (await mayRead(request, correlationId)) sse.send(event)
          })
          .catch((error: unknown) => request.log.warn({ err: error }, 'message stream failed'))
      }
      const offMessage = bus.on('message', (envelope) =>
        sendIfReadable(envelope.correlationId, {
          id: envelope.id,
          event: 'message',
          data: envelope,
        }),
      )
      const offEscalation = bus.on('escalation', (escalation) =>
        sendIfReadable(escalation.correlationId, { event: 'escalation', data: escalation }),
      )
      // A hosted agent's reply as it is written (live only; the reply comes whole as a message).
      const offDelta = agentHost.onReplyDelta?.((delta) =>
        sendIfReadable(delta.correlationId, { event: 'delta', data: delta }),
      )
      sse.onClose(() => {
        offMessage()
        offEscalation()
        offDelta?.()
      })
    },
  )

  // Allowing or stopping a held chain is its owner's (or an admin's) decision.
  const assertMaySteer = async (request: FastifyRequest, escalationId: string) => {
    const escalation = await messages.escalation(escalationId)
    if (!escalation) return // the bus answers ESCALATION_NOT_FOUND
    const owner = (await messages.conversationOwner(escalation.correlationId)) ?? 'admin'
    assertOwned(request, owner, 'steer', 'escalation', escalationId)
  }

  /**
   * A person's decision on a held chain, stored before the guard acts on it: with the database
   * away (503) or refusing writes (507) the caller gets the error and the chain stays held, to
   * be decided again, instead of moving on (the held message delivered, the chain stopped)
   * while the stored escalation stays open, to be held again by the next start. Should the
   * guard then not act (another decided first, its Redis is away), the stored escalation is put
   * back as it was; a process stopped before the guard acted acts at its next start
   * (`actOnStoredDecisions`).
   */
  const decideStored = async (
    request: FastifyRequest,
    escalationId: string,
    decision: Pick<Escalation, 'status' | 'extraHops' | 'reason'>,
    act: () => Promise<Escalation>,
  ): Promise<Escalation> => {
    const open = await bus.escalation(escalationId)
    // Unknown or resolved: the guard refuses it without acting (404, 409).
    if (open?.status !== 'open') return act()
    await messages.saveEscalation({ ...open, ...decision, resolvedAt: new Date().toISOString() })
    try {
      // Stored again as the guard resolved it, by the bus's `escalation-resolved` listener.
      return await act()
    } catch (error) {
      const now = (await bus.escalation(escalationId).catch(() => undefined)) ?? open
      await messages.saveEscalation(now).catch((saveError: unknown) => {
        request.log.error({ err: saveError, escalationId }, 'putting an escalation back failed')
      })
      throw error
    }
  }

  /**
   * `decideStored`, answered idempotently: a retry with the request's Idempotency-Key (its
   * answer lost) gets the first answer, not `409` for an escalation it resolved itself; when
   * its process died after the decision was stored, the escalation as decided.
   */
  const decideOnce = (
    request: FastifyRequest,
    reply: FastifyReply,
    escalationId: string,
    decision: Pick<Escalation, 'status' | 'extraHops' | 'reason'>,
    act: () => Promise<Escalation>,
  ) =>
    answerIdempotently(request, reply, {
      repository: repositories.idempotency,
      id: escalationId,
      create: async (id) => ({
        status: 200,
        body: { escalation: await decideStored(request, id, decision, act) },
      }),
      recover: async (id) => {
        const escalation = await messages.escalation(id)
        return escalation?.status === decision.status
          ? { status: 200, body: { escalation } }
          : undefined
      },
    })

  app.get(
    '/api/v1/escalations',
    {
      schema: {
        tags: ['bus'],
        summary: 'Escalations of the loop guard',
        querystring: EscalationQuery,
        response: { 200: EscalationList },
      },
    },
    async (request) => {
      // The limit a held chain went past, so a client need not guess it (the playground's Bus view).
      const { maxHops } = bus.loopGuard
      const all = await repositories.messages.escalations(request.query.status)
      const escalations = []
      for (const escalation of all) {
        if (await mayRead(request, escalation.correlationId)) escalations.push(escalation)
      }
      return { maxHops, escalations: escalations.map((escalation) => ({ ...escalation, maxHops })) }
    },
  )

  app.post(
    '/api/v1/escalations/:id/allow',
    {
      config: { idempotent: true },
      schema: {
        tags: ['bus'],
        summary: 'Let a held chain make more hops',
        params: z.object({ id: z.string().min(1) }),
        body: z.object({ extraHops: z.number().int().min(1).max(100) }),
        response: { 200: EscalationResolved },
      },
    },
    async (request, reply) => {
      await assertMaySteer(request, request.params.id)
      const { id } = request.params
      const { extraHops } = request.body
      return decideOnce(request, reply, id, { status: 'allowed', extraHops }, () =>
        bus.allow(id, extraHops),
      )
    },
  )

  app.post(
    '/api/v1/escalations/:id/stop',
    {
      config: { idempotent: true },
      schema: {
        tags: ['bus'],
        summary: 'End a held chain',
        params: z.object({ id: z.string().min(1) }),
        body: z
          .object({ reason: z.string().min(1).default('stopped by a person') })
          .default({ reason: 'stopped by a person' }),
        response: { 200: EscalationResolved },
      },
    },
    async (request, reply) => {
      await assertMaySteer(request, request.params.id)
      const { id } = request.params
      const { reason } = request.body
      return decideOnce(request, reply, id, { status: 'stopped', reason }, () =>
        bus.stop(id, reason),
      )
    },
  )
}
