import type { CommunicationState, CorrelationView, Envelope, Escalation } from '@baton/comm'
import { createStore, type StoreApi } from 'zustand/vanilla'
import { type EventStreamStatus, openEventStream } from './open-event-stream'
import { envelopeIn, escalationIn, escalationListIn } from './parse-server-body'
import { requestJson, type ServerEndpoint } from './request-json'
import { ServerLoopGuardError, ServerRefusedError } from './server-errors'

/** `CommunicationState` of a server's bus, plus how its live stream stands. */
export type ServerCommunicationState = CommunicationState & {
  /** The messages stream: `open`, or `retrying` with the reason while the server is away. */
  connection: EventStreamStatus
  /** The server's hop limit per conversation, once it has said (undefined until then). */
  maxHops: number | undefined
  /**
   * Hosted agents' replies still being written, by the id of the message they answer: the
   * text so far (the stream's live `delta` events). A draft goes when its reply arrives.
   */
  replyDrafts: ReadonlyMap<string, ReplyDraft>
  /** Reads one conversation (`GET /api/v1/conversations/:correlationId`) into the store. */
  loadConversation(correlationId: string): Promise<CorrelationView | undefined>
  /** Re-reads the escalations (`GET /api/v1/escalations`). */
  refreshEscalations(): Promise<readonly Escalation[]>
}

export type ServerCommunicationStore = StoreApi<ServerCommunicationState>

/** A reply a hosted agent is still writing, as much as it has written. */
export type ReplyDraft = {
  correlationId: string
  /** The message it answers. */
  inReplyTo: string
  from: { agentId: string }
  to: { agentId: string }
  text: string
}

export type CreateServerCommunicationStoreOptions = ServerEndpoint & {
  /** Follow `GET /api/v1/messages/stream` from the start (default true). */
  live?: boolean
  retryMs?: number
}

const api = 'api/v1/'

/**
 * The communication store of a Baton server's bus, for browsers: `send`, `forward` and
 * `reply` post to `/api/v1/messages`, `allow` and `stop` resolve escalations there, and
 * conversations, hop counts and escalations follow the server's live stream (retried when
 * it drops). The loop guard is the server's; nothing of it runs here.
 *
 * @example
 * const comm = createServerCommunicationStore({ baseUrl: location.origin })
 * await comm.getState().send({ from: { agentId: 'user' }, to: { agentId: 'orchestrator' }, content: 'hi' })
 */
export function createServerCommunicationStore(
  options: CreateServerCommunicationStoreOptions,
): ServerCommunicationStore {
  const correlations = new Map<string, CorrelationView>()
  const seen = new Set<string>()

  // A replayed or re-read message is kept once; the map and the conversation view are
  // replaced so selectors see the change, and hops is the highest hop seen.
  const drafts = new Map<string, ReplyDraft>()
  const append = (envelope: Envelope, notify = true) => {
    if (seen.has(envelope.id)) return
    seen.add(envelope.id)
    // The whole reply replaces the draft of it.
    if (envelope.inReplyTo) seen.add(`reply-of:${envelope.inReplyTo}`)
    if (envelope.inReplyTo && drafts.delete(envelope.inReplyTo)) {
      store.setState({ replyDrafts: new Map(drafts) })
    }
    const previous = correlations.get(envelope.correlationId)
    const messages = [...(previous?.messages ?? []), envelope].sort(byHop)
    correlations.set(envelope.correlationId, {
      correlationId: envelope.correlationId,
      messages,
      hops: Math.max(previous?.hops ?? 0, envelope.hop),
      version: (previous?.version ?? 0) + 1,
    })
    store.setState((state) => ({
      correlations: new Map(correlations),
      version: notify ? state.version + 1 : state.version,
    }))
  }

  const store = createStore<ServerCommunicationState>()((set, get) => {
    const changed = () => set((state) => ({ version: state.version + 1 }))
    const posted = async (body: unknown): Promise<Envelope> => {
      let answer: unknown
      try {
        answer = await requestJson(options, `${api}messages`, { body, once: true })
      } catch (error) {
        if (error instanceof ServerRefusedError && error.code.startsWith('LOOP_GUARD_')) {
          void get()
            .refreshEscalations()
            .catch(() => undefined)
          throw new ServerLoopGuardError(error)
        }
        throw error
      }
      const envelope = envelopeIn(answer)
      if (!envelope) throw new TypeError('The server answered a message post without the envelope.')
      append(envelope)
      return envelope
    }
    const resolved = async (path: string, body: unknown): Promise<Escalation> => {
      // Once: a retry whose first try's answer was lost is answered with it, not refused as
      // an escalation decided already.
      const answer = await requestJson(options, `${api}${path}`, { body, once: true })
      const escalation = escalationIn(answer)
      await get().refreshEscalations()
      if (!escalation) throw new TypeError(`The server answered ${path} without the escalation.`)
      return escalation
    }
    return {
      correlations: new Map(correlations),
      escalations: [],
      version: 0,
      connection: { state: 'connecting' },
      maxHops: undefined,
      replyDrafts: new Map(),
      send: (input) => posted(input),
      forward: (message, to, content) =>
        posted({
          from: { agentId: message.to.agentId },
          to: typeof to === 'string' ? { agentId: to } : to,
          content: content ?? message.content,
          type: 'direct',
          correlationId: message.correlationId,
          inReplyTo: message.id,
          hop: message.hop + 1,
        }),
      reply: (message, content) =>
        posted({
          from: { agentId: message.to.agentId },
          to: { agentId: message.from.agentId },
          content,
          type: 'reply',
          correlationId: message.correlationId,
          inReplyTo: message.id,
          hop: message.hop + 1,
        }),
      allow: (escalationId, extraHops) =>
        resolved(`escalations/${encodeURIComponent(escalationId)}/allow`, { extraHops }),
      stop: (escalationId, reason) =>
        resolved(`escalations/${encodeURIComponent(escalationId)}/stop`, { reason }),
      detach: () => {
        stream?.close()
        for (const timer of hopReads.values()) clearTimeout(timer)
      },
      async loadConversation(correlationId) {
        const answer = await requestJson(
          options,
          `${api}conversations/${encodeURIComponent(correlationId)}`,
        )
        const list = Array.isArray(answer)
          ? answer
          : ((answer as { messages?: unknown[] } | undefined)?.messages ?? [])
        for (const item of list) {
          const envelope = envelopeIn(item)
          if (envelope) append(envelope, false)
        }
        // The server's hop count is the guard's own (replies and forwards included).
        const hops = (answer as { hops?: unknown } | undefined)?.hops
        const view = correlations.get(correlationId)
        if (view && typeof hops === 'number' && hops !== view.hops) {
          correlations.set(correlationId, { ...view, hops, version: view.version + 1 })
          set({ correlations: new Map(correlations) })
        }
        changed()
        return correlations.get(correlationId)
      },
      async refreshEscalations() {
        const body = await requestJson(options, `${api}escalations`)
        const escalations = escalationListIn(body)
        const maxHops = (body as { maxHops?: unknown } | undefined)?.maxHops
        set((state) => ({
          escalations,
          version: state.version + 1,
          ...(typeof maxHops === 'number' ? { maxHops } : {}),
        }))
        return escalations
      },
    }
  })

  const onEvent = (name: string, data: string) => {
    let body: unknown
    try {
      body = JSON.parse(data)
    } catch {
      return
    }
    if (name === 'delta') {
      const delta = draftIn(body)
      // A piece of a reply that arrived already (a late delta) is not a draft again.
      if (!delta || seen.has(`reply-of:${delta.inReplyTo}`)) return
      const draft = drafts.get(delta.inReplyTo)
      drafts.set(delta.inReplyTo, { ...delta, text: (draft?.text ?? '') + delta.text })
      store.setState({ replyDrafts: new Map(drafts) })
      return
    }
    if (name.startsWith('escalation')) {
      void store
        .getState()
        .refreshEscalations()
        .catch(() => undefined)
      return
    }
    const envelope = envelopeIn(body)
    if (!envelope) return
    append(envelope)
    // The stream carries envelopes, not the guard's count: read it once things settle.
    clearTimeout(hopReads.get(envelope.correlationId))
    hopReads.set(
      envelope.correlationId,
      setTimeout(() => {
        hopReads.delete(envelope.correlationId)
        void store
          .getState()
          .loadConversation(envelope.correlationId)
          .catch(() => undefined)
      }, 200),
    )
  }
  const hopReads = new Map<string, ReturnType<typeof setTimeout>>()

  const stream =
    options.live === false
      ? undefined
      : openEventStream({
          endpoint: options,
          path: `${api}messages/stream`,
          ...(options.retryMs === undefined ? {} : { retryMs: options.retryMs }),
          onEvent: (event) => onEvent(event.event, event.data),
          onStatus: (connection) => {
            store.setState({ connection })
            // Whatever changed while the stream was away is read again when it is back.
            if (connection.state === 'open')
              void store
                .getState()
                .refreshEscalations()
                .catch(() => undefined)
          },
        })

  return store
}

function draftIn(body: unknown): ReplyDraft | undefined {
  const value = body as Partial<ReplyDraft> | null
  if (
    typeof value?.correlationId !== 'string' ||
    typeof value.inReplyTo !== 'string' ||
    typeof value.text !== 'string' ||
    typeof value.from?.agentId !== 'string' ||
    typeof value.to?.agentId !== 'string'
  )
    return undefined
  return {
    correlationId: value.correlationId,
    inReplyTo: value.inReplyTo,
    from: { agentId: value.from.agentId },
    to: { agentId: value.to.agentId },
    text: value.text,
  }
}

function byHop(left: Envelope, right: Envelope): number {
  return left.hop === right.hop
    ? left.createdAt.localeCompare(right.createdAt)
    : left.hop - right.hop
}
