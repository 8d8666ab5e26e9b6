import { describeProviderOnTheWire } from './__fixtures__/provider-contract'

type ChatMessage = { role: string; content: unknown; tool_call_id?: string }

describeProviderOnTheWire({
  ref: 'openai-compatible:tiny-model',
  api: 'openai-chat',
  apiKey: 'sk-compatible-test-0123456789',
  env: (server) => ({
    BATON_OPENAI_BASE_URL: `${server.url}/v1`,
    BATON_OPENAI_API_KEY: 'sk-compatible-test-0123456789',
  }),
  prices: { 'openai-compatible:tiny-model': { inputPerMTok: 1, outputPerMTok: 2 } },
  system: (body) =>
    body.messages.find((message: ChatMessage) => message.role === 'system')?.content,
  lastUserText: (body) =>
    body.messages.findLast((message: ChatMessage) => message.role === 'user')?.content,
  toolNames: (body) =>
    (body.tools ?? []).map((entry: { function: { name: string } }) => entry.function.name),
  toolResult: (body) => {
    const message = body.messages.find((entry: ChatMessage) => entry.role === 'tool')
    return message && { callId: message.tool_call_id, output: message.content }
  },
  toolCallId: (sequence) => `call_${sequence}_0`,
  maxOutputTokens: (body) => body.max_tokens,
  temperature: (body) => body.temperature,
})
