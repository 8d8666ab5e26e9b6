import { describeProviderOnTheWire } from './__fixtures__/provider-contract'

type Message = { role: string; content: string; tool_call_id?: string }

describeProviderOnTheWire({
  ref: 'ollama:llama3.2',
  api: 'ollama-chat',
  env: (server) => ({ OLLAMA_BASE_URL: `${server.url}/api` }),
  system: (body) => body.messages.find((message: Message) => message.role === 'system')?.content,
  lastUserText: (body) =>
    body.messages.findLast((message: Message) => message.role === 'user')?.content,
  toolNames: (body) =>
    (body.tools ?? []).map((entry: { function: { name: string } }) => entry.function.name),
  toolResult: (body) => {
    const message = body.messages.find((entry: Message) => entry.role === 'tool')
    return message && { callId: message.tool_call_id, output: message.content }
  },
  maxOutputTokens: (body) => body.options?.num_predict,
  temperature: (body) => body.options?.temperature,
})
