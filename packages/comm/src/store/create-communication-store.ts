import { createStore, type StoreApi } from 'zustand/vanilla'
import type { MessageBus } from '../bus/message-bus'
import type { Envelope } from '../envelope/envelope'
import type { CommunicationState, CorrelationView } from './communication-state'
import { MessageLog } from './message-log'
import { SnapshotMap } from './snapshot-map'

/** One version of a conversation; `messages` is read from its log (frozen, made once). */
class ConversationView implements CorrelationView {
  readonly correlationId: string
  readonly hops: number
  readonly version: number
  readonly #log: MessageLog

  constructor(correlationId: string, log: MessageLog, hops: number, version: number) {
    this.correlationId = correlationId
    this.hops = hops
    this.version = version
    this.#log = log
  }

  get messages(): readonly Envelope[] {
    return this.#log.messages
  }

  /** The next version, with `envelope` appended. */
  append(envelope: Envelope, hops: number): ConversationView {
    return new ConversationView(
      this.correlationId,
      this.#log.append(envelope),
      hops,
      this.version + 1,
    )
  }
}

function viewOf(
  correlationId: string,
  log: MessageLog,
  hops: number,
  version: number,
): ConversationView {
  return new ConversationView(correlationId, log, hops, version)
}

/**
 * A vanilla zustand store that follows a bus: conversations, escalations and hop counts,
 * plus actions that go through the bus. Bind it in React with `useStore(store, selector)`.
 * Every state is immutable: a later message never changes what an earlier state shows.
 *
 * @example
 * const store = createCommunicationStore(bus)
 * const selectThread = selectCorrelation(correlationId)
 * store.subscribe((state, previous) => {
 *   if (selectThread(state) !== selectThread(previous)) render(selectThread(state)?.messages)
 * })
 * await store.getState().send({ from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'hi' })
 */
export function createCommunicationStore(bus: MessageBus): StoreApi<CommunicationState> {
  const correlations = new SnapshotMap<ConversationView>()
  for (const correlationId of bus.correlations()) {
    const log = MessageLog.of(bus.history(correlationId))
    correlations.set(correlationId, viewOf(correlationId, log, bus.hops(correlationId), 0))
  }

  const store = createStore<CommunicationState>()(() => ({
    // zustand keeps the initial state for as long as the store lives: a detached copy.
    correlations: correlations.detached(),
    escalations: bus.escalations(),
    version: 0,
    send: (input) => bus.send(input),
    forward: (message, to, content) => bus.forward(message, to, content),
    reply: (message, content) => bus.reply(message, content),
    allow: (escalationId, extraHops) => bus.allow(escalationId, extraHops),
    stop: (escalationId, reason) => bus.stop(escalationId, reason),
    detach: () => {
      for (const off of offs) off()
    },
  }))

  const show = (next: ReadonlyMap<string, CorrelationView>, escalationsChanged = false) =>
    store.setState((state) => ({
      correlations: next,
      ...(escalationsChanged ? { escalations: bus.escalations() } : {}),
      version: state.version + 1,
    }))

  const append = (envelope: Envelope) => {
    const { correlationId } = envelope
    const previous = correlations.current.get(correlationId)
    const hops = bus.hops(correlationId)
    const next = previous
      ? previous.append(envelope, hops)
      : viewOf(correlationId, MessageLog.empty().append(envelope), hops, 1)
    show(correlations.set(correlationId, next))
  }

  const escalationsChanged = () => show(correlations.current, true)

  const offs = [
    bus.on('message', append),
    bus.on('escalation', escalationsChanged),
    bus.on('escalation-resolved', escalationsChanged),
    bus.on('correlation-expired', ({ correlationId }) => {
      if (correlations.current.has(correlationId)) show(correlations.delete(correlationId), true)
    }),
    bus.on('correlation-trimmed', ({ correlationId }) => {
      const previous = correlations.current.get(correlationId)
      if (!previous) return
      const log = MessageLog.of(bus.history(correlationId))
      show(
        correlations.set(
          correlationId,
          viewOf(correlationId, log, previous.hops, previous.version + 1),
        ),
      )
    }),
  ]

  return store
}
