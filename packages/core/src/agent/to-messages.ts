import type { ModelMessage } from 'ai'
import type { MemoryEntry } from '../memory/types'
import { memoryMessageOptions } from '../models/offline/read-prompt'

/**
 * The conversation of a run: recalled memory (marked as such), then the input.
 *
 * @example
 * toMessages([], 'Summarize the incident') // [{ role: 'user', content: 'Summarize the incident' }]
 */
export function toMessages(
  memory: readonly MemoryEntry[],
  input: string | readonly ModelMessage[],
): ModelMessage[] {
  // One array, filled in order: a run makes it on every call.
  const messages: ModelMessage[] = []
  for (const entry of memory) {
    messages.push(
      entry.role === 'assistant'
        ? { role: 'assistant', content: entry.content, providerOptions: memoryMessageOptions }
        : {
            role: 'user',
            content: entry.role === 'note' ? `(note) ${entry.content}` : entry.content,
            providerOptions: memoryMessageOptions,
          },
    )
  }
  if (typeof input === 'string') messages.push({ role: 'user', content: input })
  else for (const message of input) messages.push(message)
  return messages
}

/**
 * The text of the last user message of the input, which is what memory keeps of it.
 *
 * @example
 * inputText([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]) // 'hi'
 */
export function inputText(input: string | readonly ModelMessage[]): string {
  if (typeof input === 'string') return input
  const last = [...input].reverse().find((message) => message.role === 'user')
  if (!last) return ''
  if (typeof last.content === 'string') return last.content
  return last.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
}
