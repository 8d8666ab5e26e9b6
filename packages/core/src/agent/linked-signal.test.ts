import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { callSignal, linkedSignal } from './linked-signal'

describe('linkedSignal', () => {
  it('aborts with the reason of whichever signal aborts first', () => {
    const budget = new AbortController()
    const caller = new AbortController()
    const { signal } = linkedSignal(budget.signal, caller.signal)
    caller.abort(new Error('person pressed stop'))
    budget.abort(new Error('too late'))
    expect(signal.reason).toMatchObject({ message: 'person pressed stop' })
  })

  it('follows neither signal once disposed', () => {
    const budget = new AbortController()
    const caller = new AbortController()
    const { signal, dispose } = linkedSignal(budget.signal, caller.signal)
    dispose()
    caller.abort()
    expect(signal.aborted).toBe(false)
  })

  it('is the only signal when there is one', () => {
    const budget = new AbortController()
    expect(linkedSignal(budget.signal, undefined).signal).toBe(budget.signal)
  })
})

describe('callSignal', () => {
  it('aborts with the outer signal’s reason, and leaves no listener on it once disposed', () => {
    const run = new AbortController()
    const calls = Array.from({ length: 20 }, () => callSignal(run.signal))
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(20)
    for (const call of calls.slice(1)) call.dispose()
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(1)
    run.abort(new Error('the run was cancelled'))
    expect(calls[0]?.signal.reason).toMatchObject({ message: 'the run was cancelled' })
    expect(calls[1]?.signal.aborted).toBe(false)
  })

  it('starts aborted when the outer signal already is', () => {
    const run = new AbortController()
    run.abort(new Error('gone'))
    const call = callSignal(run.signal)
    expect(call.signal.reason).toMatchObject({ message: 'gone' })
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0)
  })
})
