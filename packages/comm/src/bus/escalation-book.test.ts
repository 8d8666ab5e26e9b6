import { describe, expect, it } from 'vitest'
import type { Escalation } from '../loop-guard/escalation'
import { EscalationBook } from './escalation-book'

const escalation = (id: string, status: Escalation['status'] = 'open', correlationId = `c-${id}`) =>
  ({ id, correlationId, status }) as Escalation

const ids = (book: EscalationBook) => book.list().map((item) => item.id)

describe('EscalationBook', () => {
  it('keeps at most its capacity: the resolved go first, oldest resolution first, then the oldest open', () => {
    const book = new EscalationBook(4)
    for (const id of ['a', 'b', 'c', 'd']) book.learn(escalation(id))
    // Resolved in this order: c, then a.
    expect(book.learn(escalation('c', 'stopped'))).toBe(true)
    expect(book.learn(escalation('a', 'allowed'))).toBe(true)
    book.learn(escalation('e'))
    expect(ids(book)).toEqual(['a', 'b', 'd', 'e'])
    book.learn(escalation('f'))
    expect(ids(book)).toEqual(['b', 'd', 'e', 'f'])
    // None resolved left: the oldest open goes.
    book.learn(escalation('g'))
    expect(ids(book)).toEqual(['d', 'e', 'f', 'g'])
  })

  it('does not reopen a resolved escalation, and tells what changed', () => {
    const book = new EscalationBook(10)
    expect(book.learn(escalation('a'))).toBe(true)
    expect(book.learn(escalation('a'))).toBe(false)
    expect(book.learn(escalation('a', 'stopped'))).toBe(true)
    expect(book.learn(escalation('a'))).toBe(false)
    expect(book.list()).toEqual([escalation('a', 'stopped')])
  })

  it('forgets the resolved escalations of a conversation, keeps its open ones, and bounds the rest as before', () => {
    const book = new EscalationBook(3)
    book.learn(escalation('a', 'open', 'talk'))
    book.learn(escalation('b', 'stopped', 'talk'))
    book.learn(escalation('c', 'open', 'other'))
    book.forgetResolved('talk')
    expect(ids(book)).toEqual(['a', 'c'])
    book.learn(escalation('d'))
    book.learn(escalation('e'))
    expect(ids(book)).toEqual(['c', 'd', 'e'])
  })

  it('stays within its capacity through a long mix of opens and resolutions', () => {
    const capacity = 50
    const book = new EscalationBook(capacity)
    const open = new Set<string>()
    for (let index = 0; index < 5_000; index += 1) {
      const id = `e${index}`
      book.learn(escalation(id))
      open.add(id)
      if (index % 3 === 0) book.learn(escalation(`e${index - 1}`, 'allowed'))
      expect(book.list().length).toBeLessThanOrEqual(capacity)
    }
    // The newest escalation is always kept, with the open ones just before it.
    expect(ids(book).at(-1)).toBe('e4999')
  })
})
