import { describe, expect, it } from 'vitest'
import { parseDirectives, stripDirectives } from './parse-directives'

describe('parseDirectives', () => {
  it('collects tool directives in order across texts, and lets later ones win for the rest', () => {
    const directives = parseDirectives([
      'system [[sleep:10]] [[answer:old]] [[chunk-delay:7]]',
      '[[tool:add {"a":1}]] [[tool:ping]] [[answer:new]] [[fail:boom]]',
    ])
    expect(directives).toEqual({
      tools: [
        { toolName: 'add', input: { a: 1 } },
        { toolName: 'ping', input: {} },
      ],
      sleepMs: 10,
      chunkDelayMs: 7,
      answer: 'new',
      fail: 'boom',
    })
  })

  it('reads JSON that itself contains closing brackets', () => {
    expect(parseDirectives(['[[json:{"nested":[[1,2]]}]]']).json).toEqual({ nested: [[1, 2]] })
  })

  it('refuses tool arguments that are not a JSON object and a sleep that is not a number', () => {
    expect(() => parseDirectives(['[[tool:add [1,2]]]'])).toThrow(/needs a JSON object/)
    expect(() => parseDirectives(['[[sleep:soon]]'])).toThrow(/milliseconds/)
    expect(() => parseDirectives(['[[chunk-delay:-1]]'])).toThrow(/\[\[chunk-delay:-1\]\]/)
    expect(() => parseDirectives(['[[answer:never closed'])).toThrow(/Malformed offline directive/)
  })

  it('strips directives from the task it restates', () => {
    expect(
      stripDirectives('do it [[tool:add {"a":1}]] [[chunk-delay:5]] now').replace(/\s+/g, ' '),
    ).toBe('do it now')
  })
})
