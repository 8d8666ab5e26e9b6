import { inspect } from 'node:util'
import { type ProviderServer, startProviderServer } from '@baton/testing/provider-server'
import { streamText } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADA_WALLET, makeAgent } from '../agent/__fixtures__/make-agent'
import { runAgent } from '../agent/run-agent'
import { createBudget } from '../budget'
import { BatonError } from '../errors'
import { createModelRegistry } from './create-model-registry'
import { ModelAuthError } from './model-errors'

// The key the registry is given; the fixture wants another one, and echoes what it got.
const WRONG_KEY = 'sk-wrong-9f8e7d6c5b4a3210'

const providers = [
  {
    ref: 'openai:gpt-4o-mini',
    variable: 'OPENAI_API_KEY',
    echoesTheKey: true,
    env: (url: string) => ({ OPENAI_API_KEY: WRONG_KEY, OPENAI_BASE_URL: `${url}/v1` }),
  },
  {
    ref: 'anthropic:claude-haiku-4-5',
    variable: 'ANTHROPIC_API_KEY',
    echoesTheKey: false,
    env: (url: string) => ({ ANTHROPIC_API_KEY: WRONG_KEY, ANTHROPIC_BASE_URL: `${url}/v1` }),
  },
  {
    ref: 'openai-compatible:tiny-model',
    variable: 'BATON_OPENAI_API_KEY',
    echoesTheKey: true,
    env: (url: string) => ({
      BATON_OPENAI_BASE_URL: `${url}/v1`,
      BATON_OPENAI_API_KEY: WRONG_KEY,
    }),
  },
]

/** Everything an error carries that could be shown or logged: message, details, cause chain. */
function everythingIn(error: unknown): string {
  const causes: unknown[] = []
  for (let cause: unknown = error; cause && causes.length < 10; ) {
    causes.push(cause)
    cause = (cause as { cause?: unknown }).cause
  }
  return [
    inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
    JSON.stringify(error),
    ...causes.map((cause) => `${String(cause)} ${JSON.stringify(cause)}`),
  ].join('\n')
}

describe('a provider that refuses the key', () => {
  let server: ProviderServer
  beforeAll(async () => {
    server = await startProviderServer({ apiKey: 'sk-the-right-one-000000' })
  })
  afterAll(() => server.close())

  describe.each(providers)('$ref', ({ ref, variable, env, echoesTheKey }) => {
    it('fails the run with MODEL_AUTH_FAILED naming the variable, at once, never showing the key', async () => {
      server.requests.length = 0
      const budget = createBudget({ calls: 3 })
      const models = createModelRegistry({ env: env(server.url) })
      const error = await runAgent(makeAgent({ model: ref }), 'Hello', { budget, models }).catch(
        (caught: unknown) => caught,
      )

      expect(error).toBeInstanceOf(ModelAuthError)
      expect(BatonError.isInstance(error) && error.code).toBe('MODEL_AUTH_FAILED')
      expect((error as Error).message).toContain(`set ${variable} to a valid key`)
      expect((error as Error).message).toContain('(HTTP 401)')
      expect((error as BatonError).details).toMatchObject({
        ref,
        variable,
        status: 401,
        attempts: 1,
      })
      // A refused key is not retried: one request, and the budget is not charged.
      expect(server.requests).toHaveLength(1)
      expect(server.requests[0]?.credential.present).toBe(true)
      expect(budget.spent().calls).toBe(0)
      expect(budget.spentByWallet()[ADA_WALLET]).toBeUndefined()
      // The OpenAI-style 401 echoes the key; nothing Baton keeps shows it.
      expect(server.requests[0]?.credential.is(WRONG_KEY)).toBe(true)
      expect(everythingIn(error)).not.toContain(WRONG_KEY)
      if (echoesTheKey) expect(everythingIn(error)).toContain('Incorrect API key provided: ***')
    })

    it('fails a streamText call the same way', async () => {
      const model = createModelRegistry({ env: env(server.url) }).languageModel(ref)
      let failure: unknown
      const result = streamText({
        model,
        prompt: 'Hello',
        onError: ({ error }) => {
          failure = error
        },
      })
      for await (const _ of result.textStream) {
        // Nothing arrives: the call is refused before the stream starts.
      }
      expect(failure).toBeInstanceOf(ModelAuthError)
      expect(everythingIn(failure)).not.toContain(WRONG_KEY)
    })
  })
})
