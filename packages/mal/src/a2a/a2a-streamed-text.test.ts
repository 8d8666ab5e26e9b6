import type { TaskArtifactUpdateEvent } from '@a2a-js/sdk'
import { textArtifactUpdate } from '@baton/testing/a2a'
import { describe, expect, it } from 'vitest'
import { A2AStreamedText } from './a2a-streamed-text'

const update = (artifactId: string, text: string, append: boolean) =>
  textArtifactUpdate({ taskId: 't', contextId: 'c', artifactId, text, append })

function follow(updates: TaskArtifactUpdateEvent[]): string[] {
  const pieces: string[] = []
  const text = new A2AStreamedText((piece) => pieces.push(piece))
  for (const each of updates) text.update(each)
  return pieces
}

describe('A2AStreamedText', () => {
  it('hands on each appended piece, and nothing more for a last update that repeats them whole', () => {
    const pieces = follow([
      update('a', 'Hel', true),
      update('a', 'lo ', true),
      update('a', 'there', true),
      update('a', 'Hello there', false),
    ])
    expect(pieces).toEqual(['Hel', 'lo ', 'there'])
  })

  it('joins a second artifact after a line break, as the answer is read', () => {
    const pieces = follow([
      update('a', 'first', false),
      update('b', 'sec', false),
      update('b', 'ond', true),
    ])
    expect(pieces.join('')).toBe('first\nsecond')
  })

  it('gives what a replacement adds past what was handed on, and nothing for one that rewrites it', () => {
    expect(follow([update('a', 'draft', true), update('a', 'draft, final', false)])).toEqual([
      'draft',
      ', final',
    ])
    // Rewritten: what was handed on cannot be taken back; the step's whole answer has it right.
    expect(
      follow([
        update('a', 'first try', true),
        update('a', 'second', false),
        update('a', '!', true),
      ]),
    ).toEqual(['first try'])
  })
})
