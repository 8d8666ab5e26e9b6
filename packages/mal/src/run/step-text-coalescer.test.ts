import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { StepTextCoalescer } from './step-text-coalescer'

describe('StepTextCoalescer', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('sends the first text at once and gathers what follows for ~50 ms', () => {
    const sent: string[] = []
    const text = new StepTextCoalescer({ send: (chunk) => sent.push(chunk), now: Date.now() })
    vi.advanceTimersByTime(7)
    text.push('He')
    expect(sent).toEqual(['He'])
    expect(text.firstTextMs).toBe(7)
    text.push('l')
    text.push('lo')
    expect(sent).toEqual(['He'])
    vi.advanceTimersByTime(50)
    expect(sent).toEqual(['He', 'llo'])
    text.push(' world')
    text.finish()
    expect(sent).toEqual(['He', 'llo', ' world'])
    text.push('late')
    vi.advanceTimersByTime(100)
    expect(sent).toHaveLength(3)
  })

  it('sends at once when a few hundred characters are waiting', () => {
    const sent: string[] = []
    const text = new StepTextCoalescer({ send: (chunk) => sent.push(chunk), maxCharacters: 100 })
    text.push('a')
    for (let index = 0; index < 10; index++) text.push('b'.repeat(20))
    expect(sent.map((chunk) => chunk.length)).toEqual([1, 100, 100])
    text.finish()
    expect(sent.join('')).toBe(`a${'b'.repeat(200)}`)
  })
})
