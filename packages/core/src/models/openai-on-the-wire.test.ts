import { type ProviderServer, startProviderServer } from '@baton/testing/provider-server'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { makeAgent } from '../agent/__fixtures__/make-agent'
import { runAgent } from '../agent/run-agent'
import { createBudget } from '../budget'
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

describe('runAgent without a registry', () => {
  let server: ProviderServer
  beforeAll(async () => {
    server = await startProviderServer({ apiKey: 'sk-from-process-env-0123' })
  })
  afterAll(async () => {
    vi.unstubAllEnvs()
    await server.close()
  })

  it('reads OPENAI_API_KEY and OPENAI_BASE_URL from process.env', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-process-env-0123')
    vi.stubEnv('OPENAI_BASE_URL', `${server.url}/v1`)
    server.script({ text: 'Configured by the environment' })
    const result = await runAgent(makeAgent({ model: 'openai:gpt-4o-mini' }), 'Hello', {
      budget: createBudget({ calls: 1 }),
    })
    expect(result.text).toBe('Configured by the environment')
    expect(server.requests[0]?.credential.is('sk-from-process-env-0123')).toBe(true)
  })
})
