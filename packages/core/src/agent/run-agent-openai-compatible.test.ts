import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createBudget } from '../budget'
import type { BatonError } from '../errors'
import { createModelRegistry } from '../models'
import { ADA_WALLET, makeAgent } from './__fixtures__/make-agent'
import { AgentRunError } from './agent-errors'
import { runAgent } from './run-agent'

type Seen = { path: string; authorization: string | undefined; body: Record<string, unknown> }
type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number }

const reportedUsage: Usage = { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500 }

/**
 * A minimal Chat Completions endpoint; `status` picks the HTTP status of the n-th request and
 * `usage` what it reports for a request body (`undefined`: no usage field).
 */
async function startServer(
  status: (request: number) => number,
  usage: (body: Record<string, unknown>) => Usage | undefined,
) {
  const seen: Seen[] = []
  const server = createServer(async (request, response) => {
    const body = JSON.parse(await readBody(request)) as Record<string, unknown>
    seen.push({ path: request.url ?? '', authorization: request.headers.authorization, body })
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      response.writeHead(404).end()
      return
    }
    const code = status(seen.length)
    response.writeHead(code, { 'content-type': 'application/json' })
    if (code !== 200) {
      response.end(
        JSON.stringify({ error: { message: 'upstream exploded', type: 'server_error' } }),
      )
      return
    }
    response.end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'Hello from the server' },
            finish_reason: 'stop',
          },
        ],
        usage: usage(body),
      }),
    )
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return { server, seen, baseUrl: `http://127.0.0.1:${port}/v1` }
}

async function readBody(request: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of request) text += chunk
  return text
}

describe('runAgent with an OpenAI-compatible endpoint', () => {
  let server: Server
  let seen: Seen[]
  let baseUrl: string
  let status: (request: number) => number
  let usage: (body: Record<string, unknown>) => Usage | undefined

  beforeEach(async () => {
    status = () => 200
    usage = () => reportedUsage
    ;({ server, seen, baseUrl } = await startServer(
      (request) => status(request),
      (body) => usage(body),
    ))
  })
  afterEach(async () => {
    server.close()
    await once(server, 'close')
  })

  const models = () =>
    createModelRegistry({
      env: { BATON_OPENAI_BASE_URL: baseUrl, BATON_OPENAI_API_KEY: 'sk-test-123' },
      prices: { 'openai-compatible:tiny-model': { inputPerMTok: 1, outputPerMTok: 2 } },
    })
  const agent = makeAgent({ model: 'openai-compatible:tiny-model', tools: [] })

  it('charges the tokens and cost the endpoint reports, with the key in the Authorization header', async () => {
    const budget = createBudget({ calls: 3, cost: 1 })
    const result = await runAgent(agent, 'Say hello', { budget, models: models() })
    expect(result.text).toBe('Hello from the server')
    expect(result.usage).toEqual({ calls: 1, tokens: 1500, costUsd: expect.closeTo(0.0018, 12) })
    expect(budget.spentByWallet()[ADA_WALLET]).toEqual(result.usage)
    expect(seen).toHaveLength(1)
    expect(seen[0]?.authorization).toBe('Bearer sk-test-123')
    expect(seen[0]?.body.model).toBe('tiny-model')
    const messages = seen[0]?.body.messages as { role: string; content: string }[]
    expect(messages[0]).toEqual({
      role: 'system',
      content: 'You are Ada, a worker agent. Adds numbers.',
    })
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'Say hello' })
  })

  it('asks the endpoint for no more output tokens than the budget has left', async () => {
    const budget = createBudget({ tokens: 5000 })
    await expect(runAgent(agent, 'Say hello', { budget, models: models() })).resolves.toBeTruthy()
    const limit = seen[0]?.body.max_tokens as number
    expect(limit).toBeGreaterThan(0)
    expect(limit).toBeLessThan(5000)
  })

  it('surfaces a 500 as a clear error and charges nothing', async () => {
    status = () => 500
    const budget = createBudget({ calls: 3 })
    const run = runAgent(agent, 'Say hello', { budget, models: models(), maxRetries: 0 })
    await expect(run).rejects.toBeInstanceOf(AgentRunError)
    const error = (await run.catch((caught: unknown) => caught)) as BatonError
    expect(error.code).toBe('AGENT_RUN_FAILED')
    expect(error.message).toContain('failed calling openai-compatible:tiny-model (HTTP 500)')
    expect(error.message).not.toContain('sk-test-123')
    expect(JSON.stringify(error.details)).not.toContain('sk-test-123')
    expect(budget.spent()).toMatchObject({ calls: 0, tokens: 0, costUsd: 0 })
    expect(budget.remaining().calls).toBe(3)
  })

  it('retries a 500 once the endpoint recovers, charging only the call that answered', async () => {
    status = (request) => (request === 1 ? 500 : 200)
    const budget = createBudget({ calls: 3 })
    const result = await runAgent(agent, 'Say hello', { budget, models: models(), maxRetries: 1 })
    expect(seen).toHaveLength(2)
    expect(result.usage.calls).toBe(1)
    expect(budget.spent().calls).toBe(1)
  })

  it('keeps a cost budget even when the endpoint answers with every output token it was allowed', async () => {
    // The prompt is billed at less than the estimate, so only the output cap stands in the way.
    usage = (body) => {
      const completion = body.max_tokens as number
      return { prompt_tokens: 10, completion_tokens: completion, total_tokens: 10 + completion }
    }
    const budget = createBudget({ cost: 0.002 })
    const result = await runAgent(agent, 'Say hello', { budget, models: models() })
    expect(result.usage.tokens - 10).toBe(seen[0]?.body.max_tokens)
    expect(budget.spent().costUsd).toBeLessThanOrEqual(0.002 + 1e-12)
    expect(budget.spent().costUsd).toBeGreaterThan(0.0019)
  })

  it('charges the whole answer allowance when the endpoint reports no usage', async () => {
    usage = () => undefined
    const budget = createBudget({ tokens: 5000 })
    const result = await runAgent(agent, 'Say hello', { budget, models: models() })
    const allowance = seen[0]?.body.max_tokens as number
    expect(allowance).toBeGreaterThan(0)
    // The prompt is charged at its estimate, the answer at the most it was allowed.
    expect(result.usage.tokens).toBeGreaterThan(allowance)
    expect(budget.spent().tokens).toBe(result.usage.tokens)
    expect(budget.spent().tokens).toBeLessThanOrEqual(5000)
  })
})
