import type { LanguageModelV3Content, LanguageModelV3Prompt } from '@ai-sdk/provider'

type Part = Record<string, unknown>

/**
 * A prompt in the GenAI conventions' message shape (`gen_ai.input.messages`), as JSON, and
 * its system instructions apart (`gen_ai.system_instructions`). Only built when content
 * capture is on.
 *
 * @example
 * inputMessages([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]).messages // '[{"role":"user","parts":[{"type":"text","content":"Hi"}]}]'
 */
export function inputMessages(prompt: LanguageModelV3Prompt): {
  messages: string
  system?: string
} {
  const system: Part[] = []
  const messages: { role: string; parts: Part[] }[] = []
  for (const message of prompt) {
    if (message.role === 'system') {
      system.push({ type: 'text', content: message.content })
      continue
    }
    const parts: Part[] = []
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') {
        parts.push({ type: part.type, content: part.text })
      } else if (part.type === 'tool-call') {
        parts.push({
          type: 'tool_call',
          id: part.toolCallId,
          name: part.toolName,
          arguments: part.input,
        })
      } else if (part.type === 'tool-result') {
        parts.push({ type: 'tool_call_response', id: part.toolCallId, response: part.output })
      } else {
        parts.push({ type: part.type })
      }
    }
    messages.push({ role: message.role, parts })
  }
  return {
    messages: JSON.stringify(messages),
    ...(system.length > 0 ? { system: JSON.stringify(system) } : {}),
  }
}

/**
 * A model's answer as `gen_ai.output.messages` JSON.
 *
 * @example
 * outputMessages([{ type: 'text', text: 'Hello' }], 'stop') // '[{"role":"assistant","parts":[...],"finish_reason":"stop"}]'
 */
export function outputMessages(content: LanguageModelV3Content[], finishReason: string): string {
  const parts: Part[] = []
  for (const part of content) {
    if (part.type === 'text' || part.type === 'reasoning') {
      parts.push({ type: part.type, content: part.text })
    } else if (part.type === 'tool-call') {
      parts.push({
        type: 'tool_call',
        id: part.toolCallId,
        name: part.toolName,
        arguments: part.input,
      })
    }
  }
  return JSON.stringify([{ role: 'assistant', parts, finish_reason: finishReason }])
}
