import { describe, expect, it } from 'vitest'
import { createMessageBus } from '../bus/create-message-bus'
import { createCommunicationStore } from './create-communication-store'
import { selectCorrelation, selectOpenEscalations } from './select-correlation'

const from = { agentId: 'ops' }

describe('createCommunicationStore', () => {
  it('appends to one conversation without touching the selected value of another', async () => {
    const bus = createMessageBus()
    const store = createCommunicationStore(bus)
    const first = await bus.send({ from, to: { agentId: 'analyst' }, content: 'one' })
    const other = await bus.send({ from, to: { agentId: 'reviewer' }, content: 'two' })

    const selectFirst = selectCorrelation(first.correlationId)
    const selectOther = selectCorrelation(other.correlationId)
    const otherBefore = selectOther(store.getState())
    const firstBefore = selectFirst(store.getState())!
    const messagesBefore = firstBefore.messages
    const correlationsBefore = store.getState().correlations

    const otherChanges: unknown[] = []
    store.subscribe((state) => {
      const view = selectOther(state)
      if (view !== otherBefore) otherChanges.push(view)
    })
    const forwarded = await bus.forward(first, 'reviewer')

    const firstAfter = selectFirst(store.getState())!
    expect(selectOther(store.getState())).toBe(otherBefore)
    expect(otherChanges).toEqual([])
    expect(firstAfter).not.toBe(firstBefore)
    expect(firstAfter.version).toBe(firstBefore.version + 1)
    expect(firstAfter.hops).toBe(1)
    expect(firstAfter.messages).toEqual([first, forwarded])
    // O(1) append: the same array grew, and the map of conversations was not copied
    expect(firstAfter.messages).toBe(messagesBefore)
    expect(store.getState().correlations).toBe(correlationsBefore)
    await bus.close()
  })

  it('does not copy earlier messages when appending many', async () => {
    const bus = createMessageBus({ loopGuard: { maxHops: 1000 } })
    const store = createCommunicationStore(bus)
    let message = await bus.send({ from, to: { agentId: 'a0' }, content: 'x' })
    const messages = store.getState().correlations.get(message.correlationId)!.messages
    for (let index = 1; index <= 200; index += 1) message = await bus.forward(message, `a${index}`)
    const view = store.getState().correlations.get(message.correlationId)!
    expect(view.messages).toBe(messages)
    expect(view.messages).toHaveLength(201)
    expect(view.version).toBe(201)
    await bus.close()
  })

  it('shows escalations and resolves them through its allow and stop actions', async () => {
    const bus = createMessageBus({ loopGuard: { maxHops: 1 } })
    const store = createCommunicationStore(bus)
    const { send, forward, allow, stop } = store.getState()
    const first = await send({ from, to: { agentId: 'A' }, content: 'x' })
    const second = await forward(first, 'B')
    await expect(forward(second, 'C')).rejects.toMatchObject({ code: 'LOOP_GUARD_ESCALATED' })

    const open = selectOpenEscalations(store.getState())
    expect(open).toHaveLength(1)
    expect(selectOpenEscalations(store.getState())).toBe(open)
    expect(open[0]).toMatchObject({ correlationId: first.correlationId, status: 'open' })

    await allow(open[0]!.id, 1)
    expect(selectOpenEscalations(store.getState())).toEqual([])
    const view = selectCorrelation(first.correlationId)(store.getState())!
    expect(view.messages.map((message) => message.to.agentId)).toEqual(['A', 'B', 'C'])
    expect(view.hops).toBe(2)

    const held = view.messages[2]!
    await expect(forward(held, 'D')).rejects.toMatchObject({ code: 'LOOP_GUARD_ESCALATED' })
    const again = selectOpenEscalations(store.getState())
    expect(again).toHaveLength(1)
    await stop(again[0]!.id, 'enough')
    expect(store.getState().escalations.map((escalation) => escalation.status)).toEqual([
      'allowed',
      'stopped',
    ])
    await bus.close()
  })

  it('drops conversations the bus expired, and stops following the bus after detach', async () => {
    const bus = createMessageBus({ retention: { maxMessages: 2 } })
    const store = createCommunicationStore(bus)
    const first = await bus.send({ from, to: { agentId: 'a' }, content: '1' })
    await bus.send({ from, to: { agentId: 'b' }, content: '2' })
    await bus.send({ from, to: { agentId: 'c' }, content: '3' })
    expect(store.getState().correlations.has(first.correlationId)).toBe(false)
    expect(store.getState().correlations.size).toBe(2)

    store.getState().detach()
    const version = store.getState().version
    await bus.send({ from, to: { agentId: 'd' }, content: '4' })
    expect(store.getState().version).toBe(version)
    await bus.close()
  })

  it('starts from what the bus already holds', async () => {
    const bus = createMessageBus()
    const earlier = await bus.send({ from, to: { agentId: 'a' }, content: 'before' })
    const store = createCommunicationStore(bus)
    expect(selectCorrelation(earlier.correlationId)(store.getState())?.messages).toEqual([earlier])
    await bus.close()
  })
})
