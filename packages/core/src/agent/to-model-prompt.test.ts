import type { ModelMessage } from 'ai'
import { convertToLanguageModelPrompt } from 'ai/internal'
import { describe, expect, it } from 'vitest'
import { memoryMessageOptions } from '../models'
import { toModelPrompt } from './to-model-prompt'

const signal = new AbortController().signal

describe('toModelPrompt', () => {
  it('converts plain text messages exactly as the AI SDK does', async () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'remember heron', providerOptions: memoryMessageOptions },
      { role: 'assistant', content: 'noted', providerOptions: memoryMessageOptions },
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What was the codeword?' },
    ]
    const ours = await toModelPrompt({
      system: 'You are Ada.',
      messages,
      supportedUrls: {},
      signal,
    })
    const theirs = await convertToLanguageModelPrompt({
      prompt: { system: 'You are Ada.', messages },
      supportedUrls: {},
      download: undefined,
    })
    expect(ours).toEqual(theirs)
  })

  it('leaves messages with parts, tool calls and results to the AI SDK', async () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'add 1 and 2' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'add', input: { a: 1, b: 2 } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'add',
            output: { type: 'json', value: 3 },
          },
        ],
      },
    ]
    const prompt = await toModelPrompt({
      system: 'You are Ada.',
      messages,
      supportedUrls: {},
      signal,
    })
    expect(prompt.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool'])
  })
})
