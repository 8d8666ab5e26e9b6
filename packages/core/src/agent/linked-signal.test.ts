import { describe, expect, it } from 'vitest'
import { linkedSignal } from './linked-signal'

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
