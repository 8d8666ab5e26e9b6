import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createBudget } from '../budget'
import { createModelRegistry } from '../models'
import { ADA_WALLET, makeAgent } from './__fixtures__/make-agent'
import { runAgent } from './run-agent'

describe('runAgent with an Ollama server', () => {
  it('calls OLLAMA_BASE_URL and charges the tokens it reports at no cost', async () => {
    const paths: string[] = []
    const server = createServer(async (request, response) => {
      let body = ''
      for await (const chunk of request) body += chunk
      paths.push(`${request.method} ${request.url} ${JSON.parse(body).model}`)
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify({
          model: 'llama3.2',
          created_at: '2025-01-01T00:00:00Z',
          done: true,
          done_reason: 'stop',
          message: { role: 'assistant', content: 'Hi from Ollama' },
          prompt_eval_count: 40,
          eval_count: 6,
        }),
      )
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    try {
      const budget = createBudget({ calls: 1 })
      const result = await runAgent(makeAgent({ model: 'ollama:llama3.2', tools: [] }), 'Hello', {
        budget,
        models: createModelRegistry({ env: { OLLAMA_BASE_URL: `http://127.0.0.1:${port}/api` } }),
      })
      expect(paths).toEqual(['POST /api/chat llama3.2'])
      expect(result.text).toBe('Hi from Ollama')
      expect(result.usage).toEqual({ calls: 1, tokens: 46, costUsd: 0 })
      expect(budget.spentByWallet()[ADA_WALLET]).toEqual({ calls: 1, tokens: 46, costUsd: 0 })
    } finally {
      server.close()
    }
  })
})
