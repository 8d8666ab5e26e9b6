import { describeProviderOnTheWire } from './__fixtures__/provider-contract'

type Block = { type: string; text?: string; tool_use_id?: string; content?: unknown }
type Message = { role: string; content: string | Block[] }

const blocks = (message: Message | undefined): Block[] =>
  typeof message?.content === 'string'
    ? [{ type: 'text', text: message.content }]
    : (message?.content ?? [])

describeProviderOnTheWire({
  ref: 'anthropic:claude-haiku-4-5',
  api: 'anthropic-messages',
  apiKey: 'sk-ant-test-0123456789',
  env: (server) => ({
    ANTHROPIC_API_KEY: 'sk-ant-test-0123456789',
    ANTHROPIC_BASE_URL: `${server.url}/v1`,
  }),
  system: (body) => body.system?.map((block: Block) => block.text).join(''),
  lastUserText: (body) =>
    blocks(body.messages.findLast((message: Message) => message.role === 'user'))
      .map((block) => block.text)
      .join(''),
  toolNames: (body) => (body.tools ?? []).map((entry: { name: string }) => entry.name),
  toolResult: (body) => {
    const result = body.messages
      .flatMap((message: Message) => blocks(message))
      .find((block: Block) => block.type === 'tool_result')
    if (!result) return undefined
    const content = Array.isArray(result.content)
      ? result.content.map((part: Block) => part.text).join('')
      : result.content
    return { callId: result.tool_use_id, output: content }
  },
  toolCallId: (sequence) => `toolu_${sequence}_0`,
  maxOutputTokens: (body) => body.max_tokens,
  temperature: (body) => body.temperature,
})
