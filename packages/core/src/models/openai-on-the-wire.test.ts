import { describeProviderOnTheWire } from './__fixtures__/provider-contract'

type InputItem = {
  type?: string
  role?: string
  content?: string | { type: string; text: string }[]
  call_id?: string
  output?: unknown
}

const textOf = (item: InputItem | undefined) =>
  typeof item?.content === 'string'
    ? item.content
    : item?.content?.map((part) => part.text).join('')

describeProviderOnTheWire({
  ref: 'openai:gpt-4o-mini',
  api: 'openai-responses',
  apiKey: 'sk-openai-test-0123456789',
  env: (server) => ({
    OPENAI_API_KEY: 'sk-openai-test-0123456789',
    OPENAI_BASE_URL: `${server.url}/v1`,
  }),
  system: (body) => textOf(body.input.find((item: InputItem) => item.role === 'system')),
  lastUserText: (body) => textOf(body.input.findLast((item: InputItem) => item.role === 'user')),
  toolNames: (body) => (body.tools ?? []).map((entry: { name: string }) => entry.name),
  toolResult: (body) => {
    const item = body.input.find((entry: InputItem) => entry.type === 'function_call_output')
    return item && { callId: item.call_id, output: item.output }
  },
  toolCallId: (sequence) => `call_${sequence}_0`,
  maxOutputTokens: (body) => body.max_output_tokens,
  temperature: (body) => body.temperature,
})
