import type { LanguageModelV3Prompt } from '@ai-sdk/provider'
import { describe, expect, it } from 'vitest'
import { memoryMessageOptions, promptCharacters, readPrompt } from './read-prompt'

const prompt: LanguageModelV3Prompt = [
  { role: 'system', content: 'Be brief.' },
  {
    role: 'user',
    content: [{ type: 'text', text: 'earlier' }],
    providerOptions: memoryMessageOptions,
  },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Add 2 and 3.' },
      { type: 'file', data: 'aGVsbG8=', mediaType: 'text/plain' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Use the tool.' },
      { type: 'text', text: 'Calling add.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: { a: 2, b: 3 } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'noop', input: undefined },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'add',
        output: { type: 'json', value: { sum: 5 } },
      },
      {
        type: 'tool-result',
        toolCallId: 'c2',
        toolName: 'noop',
        output: { type: 'text', value: 'ok' },
      },
      {
        type: 'tool-result',
        toolCallId: 'c3',
        toolName: 'x',
        output: { type: 'error-text', value: 'boom' },
      },
      {
        type: 'tool-result',
        toolCallId: 'c4',
        toolName: 'y',
        output: { type: 'error-json', value: [1] },
      },
      {
        type: 'tool-result',
        toolCallId: 'c5',
        toolName: 'z',
        output: { type: 'execution-denied', reason: 'no' },
      },
      {
        type: 'tool-result',
        toolCallId: 'c6',
        toolName: 'shot',
        output: {
          type: 'content',
          value: [
            { type: 'text', text: 'a picture' },
            { type: 'image-data', data: 'AAAA', mediaType: 'image/png' },
          ],
        },
      },
    ],
  },
]

describe('promptCharacters', () => {
  it('counts what readPrompt counts, part by part', () => {
    expect(promptCharacters(prompt)).toBe(readPrompt(prompt).characters)
    expect(promptCharacters(prompt)).toBeGreaterThan(60)
    for (let end = 0; end <= prompt.length; end++) {
      const part = prompt.slice(0, end)
      expect(promptCharacters(part)).toBe(readPrompt(part).characters)
    }
  })

  it('counts a system message by its length and nothing for a file', () => {
    expect(promptCharacters([{ role: 'system', content: 'abcd' }])).toBe(4)
    expect(
      promptCharacters([
        { role: 'user', content: [{ type: 'file', data: 'aGVsbG8=', mediaType: 'text/plain' }] },
      ]),
    ).toBe(0)
  })
})
