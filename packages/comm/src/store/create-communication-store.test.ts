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
    // every version is immutable: the earlier view and map still show what they showed
    expect(messagesBefore).toEqual([first])
    expect(firstBefore.messages).toEqual([first])
    expect(correlationsBefore.get(first.correlationId)).toBe(firstBefore)
    expect(store.getState().correlations).not.toBe(correlationsBefore)
    await bus.close()
  })

  it('gives every version its own frozen messages, so a selector of messages fires', async () => {
    const bus = createMessageBus({ loopGuard: { maxHops: 1000 } })
    const store = createCommunicationStore(bus)
    let message = await bus.send({ from, to: { agentId: 'a0' }, content: 'x' })
    const selectMessages = (state: ReturnType<typeof store.getState>) =>
      state.correlations.get(message.correlationId)?.messages
    const seen: (readonly unknown[] | undefined)[] = [selectMessages(store.getState())]
    store.subscribe((state, previous) => {
      if (selectMessages(state) !== selectMessages(previous)) seen.push(selectMessages(state))
    })
    const states = [store.getState()]
    for (let index = 1; index <= 200; index += 1) {
      message = await bus.forward(message, `a${index}`)
      states.push(store.getState())
    }
    expect(seen).toHaveLength(201)
    expect(seen.map((messages) => messages?.length)).toEqual(
      Array.from({ length: 201 }, (_, index) => index + 1),
    )
    expect(Object.isFrozen(seen[0])).toBe(true)
    // an early state, read after all the appends, still shows one message and one conversation
    expect(states[0]!.correlations.get(message.correlationId)?.messages).toHaveLength(1)
    expect([...states[0]!.correlations.keys()]).toEqual([message.correlationId])
    expect(states[200]!.correlations.get(message.correlationId)?.version).toBe(201)
    await bus.close()
  })

  it('keeps an expired conversation in the states from before it expired', async () => {
    const bus = createMessageBus({ retention: { maxMessages: 2 } })
    const store = createCommunicationStore(bus)
    const first = await bus.send({ from, to: { agentId: 'a' }, content: '1' })
    const before = store.getState().correlations
    await bus.send({ from, to: { agentId: 'b' }, content: '2' })
    await bus.send({ from, to: { agentId: 'c' }, content: '3' })
    expect(store.getState().correlations.has(first.correlationId)).toBe(false)
    expect(before.has(first.correlationId)).toBe(true)
    expect(before.size).toBe(1)
    expect([...before.values()].map((view) => view.messages)).toEqual([[first]])
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
