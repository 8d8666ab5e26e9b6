import type { LanguageModelV3Prompt } from '@ai-sdk/provider'
import type { ModelMessage } from 'ai'
import { convertToLanguageModelPrompt } from 'ai/internal'

/**
 * The prompt of one model call. A conversation of plain text messages (the common case: a
 * task, recalled memory) is converted here, exactly as the AI SDK converts it; anything else
 * (parts, files, tool calls and results) goes through the SDK's own conversion.
 *
 * @example
 * await toModelPrompt({ system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }], supportedUrls: {}, signal })
 */
export async function toModelPrompt(options: {
  system: string
  messages: ModelMessage[]
  supportedUrls: Record<string, RegExp[]>
  signal: AbortSignal
}): Promise<LanguageModelV3Prompt> {
  const { system, messages } = options
  const plain = plainModelPrompt(system, messages)
  if (plain) return plain
  return convertToLanguageModelPrompt({
    prompt: { system, messages },
    supportedUrls: options.supportedUrls,
    download: undefined,
    abortSignal: options.signal,
  })
}

/**
 * The prompt of a conversation of plain text messages, made at once (no promise: a hop's
 * model call makes its prompt here); `undefined` for any other conversation.
 *
 * @example
 * plainModelPrompt('Be brief.', [{ role: 'user', content: 'hi' }]) // [{ role: 'system', ... }, { role: 'user', ... }]
 */
export function plainModelPrompt(
  system: string,
  messages: ModelMessage[],
): LanguageModelV3Prompt | undefined {
  if (!messages.every(isPlainText)) return undefined
  const prompt: LanguageModelV3Prompt = [{ role: 'system', content: system }]
  for (const message of messages) {
    const providerOptions = message.providerOptions
    if (message.role === 'system') {
      prompt.push({ role: 'system', content: message.content as string, providerOptions })
    } else if (message.role === 'user' || message.role === 'assistant') {
      prompt.push({
        role: message.role,
        content: [{ type: 'text', text: message.content as string }],
        providerOptions,
      })
    }
  }
  return prompt
}

function isPlainText(message: ModelMessage): boolean {
  return message.role !== 'tool' && typeof message.content === 'string'
}
