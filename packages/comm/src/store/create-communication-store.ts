import { createStore, type StoreApi } from 'zustand/vanilla'
import type { MessageBus } from '../bus/message-bus'
import type { Envelope } from '../envelope/envelope'
import type { CommunicationState, CorrelationView } from './communication-state'

/**
 * A vanilla zustand store that follows a bus: conversations, escalations and hop counts,
 * plus actions that go through the bus. Bind it in React with `useStore(store, selector)`.
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
  const correlations = new Map<string, CorrelationView>()
  for (const correlationId of bus.correlations()) {
    correlations.set(correlationId, {
      correlationId,
      messages: bus.history(correlationId),
      hops: bus.hops(correlationId),
      version: 0,
    })
  }

  const store = createStore<CommunicationState>()(() => ({
    correlations,
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

  const changed = () => store.setState((state) => ({ version: state.version + 1 }))

  const append = (envelope: Envelope) => {
    const { correlationId } = envelope
    const previous = correlations.get(correlationId)
    // The array is shared with the previous view and only ever grows, so this is O(1).
    const messages = (previous?.messages ?? []) as Envelope[]
    messages.push(envelope)
    correlations.set(correlationId, {
      correlationId,
      messages,
      hops: bus.hops(correlationId),
      version: (previous?.version ?? 0) + 1,
    })
    changed()
  }

  const escalationsChanged = () => {
    store.setState((state) => ({ escalations: bus.escalations(), version: state.version + 1 }))
  }

  const offs = [
    bus.on('message', append),
    bus.on('escalation', escalationsChanged),
    bus.on('escalation-resolved', escalationsChanged),
    bus.on('correlation-expired', ({ correlationId }) => {
      if (correlations.delete(correlationId)) escalationsChanged()
    }),
    bus.on('correlation-trimmed', ({ correlationId }) => {
      const previous = correlations.get(correlationId)
      if (!previous) return
      correlations.set(correlationId, {
        ...previous,
        messages: bus.history(correlationId),
        version: previous.version + 1,
      })
      changed()
    }),
  ]

  return store
}
