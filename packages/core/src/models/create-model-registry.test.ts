import { generateText } from 'ai'
import { describe, expect, it } from 'vitest'
import type { BatonError } from '../errors'
import { createModelRegistry } from './create-model-registry'
import { ProviderNotConfiguredError, UnknownProviderError } from './model-errors'
import { createOfflineModel } from './offline'

describe('createModelRegistry', () => {
  it('resolves offline models with an empty environment', async () => {
    const models = createModelRegistry({ env: {} })
    const model = models.languageModel('offline:default')
    expect(model.provider).toBe('offline')
    expect(model.modelId).toBe('default')
    const { text } = await generateText({ model, prompt: '[[answer:ok]]' })
    expect(text).toBe('ok')
  })

  it('lists only the providers the environment configures', () => {
    expect(createModelRegistry({ env: {} }).providers()).toEqual(['offline', 'ollama'])
    expect(
      createModelRegistry({
        env: {
          OPENAI_API_KEY: 'sk-a',
          ANTHROPIC_API_KEY: 'sk-b',
          BATON_OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
        },
      }).providers(),
    ).toEqual(['offline', 'openai-compatible', 'openai', 'anthropic', 'ollama'])
  })

  it('refuses a malformed model reference with a validation error that says so', () => {
    const models = createModelRegistry({ env: {} })
    for (const ref of ['Offline:default', 'offline', 'offline: default', 42]) {
      const error = catchError(() => models.languageModel(ref as string))
      expect((error as BatonError).code).toBe('VALIDATION_FAILED')
      expect((error as Error).message).toMatch(/model reference/)
    }
  })

  it('refuses an unknown provider and lists the known ones', () => {
    const models = createModelRegistry({ env: {} })
    const error = catchError(() => models.languageModel('mystery:model-1'))
    expect(error).toBeInstanceOf(UnknownProviderError)
    expect((error as BatonError).code).toBe('UNKNOWN_PROVIDER')
    expect((error as Error).message).toBe(
      'Unknown model provider "mystery" in "mystery:model-1". Known providers: offline, openai-compatible, openai, anthropic, ollama.',
    )
  })

  it('refuses a provider named like what every object inherits, as unknown', () => {
    const models = createModelRegistry({ env: {}, providers: {} })
    for (const ref of ['constructor:model-1', 'hasownproperty:x']) {
      const error = catchError(() => models.languageModel(ref))
      expect(error).toBeInstanceOf(UnknownProviderError)
    }
    expect(models.providers()).not.toContain('constructor')
  })

  it.each([
    ['openai:gpt-4o-mini', 'OPENAI_API_KEY'],
    ['anthropic:claude-sonnet-4-0', 'ANTHROPIC_API_KEY'],
    ['openai-compatible:llama-3', 'BATON_OPENAI_BASE_URL'],
  ])('names the variable to set when %s is not configured', (ref, variable) => {
    const error = catchError(() => createModelRegistry({ env: {} }).languageModel(ref))
    expect(error).toBeInstanceOf(ProviderNotConfiguredError)
    expect((error as BatonError).code).toBe('PROVIDER_NOT_CONFIGURED')
    expect((error as Error).message).toContain(`set ${variable} in the environment`)
  })

  it('resolves configured providers without putting keys anywhere in errors', () => {
    const models = createModelRegistry({
      env: { OPENAI_API_KEY: 'sk-secret-1', ANTHROPIC_API_KEY: 'sk-secret-2' },
    })
    expect(models.languageModel('openai:gpt-4o-mini').modelId).toBe('gpt-4o-mini')
    expect(models.languageModel('anthropic:claude-sonnet-4-0').provider).toContain('anthropic')
    expect(models.languageModel('ollama:llama3.2').modelId).toBe('llama3.2')
    const error = catchError(() => models.languageModel('nope:x')) as BatonError
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toMatch(
      /sk-secret/,
    )
  })

  it('refuses a reference without a provider', () => {
    expect(() => createModelRegistry({ env: {} }).languageModel('gpt-4o')).toThrow(
      /Invalid model reference: must be "provider:model-id"/,
    )
  })

  it.each(['BATON_OPENAI_BASE_URL', 'OPENAI_BASE_URL', 'ANTHROPIC_BASE_URL', 'OLLAMA_BASE_URL'])(
    'refuses a malformed %s, naming the variable',
    (variable) => {
      expect(() => createModelRegistry({ env: { [variable]: 'not a url' } })).toThrow(
        new RegExp(`${variable}: must be a URL`),
      )
    },
  )

  it('refuses a number of retries that is not a whole number of 0 or more', () => {
    expect(() => createModelRegistry({ env: {}, maxRetries: -1 })).toThrow(
      /Invalid maxRetries: must be 0 or more/,
    )
    const models = createModelRegistry({ env: {} })
    expect(() => models.languageModel('ollama:llama3.2', { maxRetries: 1.5 })).toThrow(
      /Invalid languageModel maxRetries: must be a whole number/,
    )
  })

  it('hands out the offline model as it is, and a network model with its own id and provider', () => {
    const models = createModelRegistry({ env: { OPENAI_API_KEY: 'sk-a' } })
    expect(models.languageModel('offline:default')).toMatchObject({ provider: 'offline' })
    expect(models.languageModel('openai:gpt-4o-mini')).toMatchObject({
      provider: 'openai.responses',
      modelId: 'gpt-4o-mini',
    })
  })

  it('prefers your own providers and merges your prices over the defaults', () => {
    const models = createModelRegistry({
      env: {},
      providers: { house: { languageModel: (id) => createOfflineModel(`house-${id}`) } },
      prices: { 'house:*': { inputPerMTok: 1, outputPerMTok: 2 } },
    })
    expect(models.languageModel('house:small').modelId).toBe('house-small')
    expect(models.providers()).toContain('house')
    expect(models.prices?.['house:*']).toEqual({ inputPerMTok: 1, outputPerMTok: 2 })
    expect(models.prices?.['offline:*']).toEqual({ inputPerMTok: 0.1, outputPerMTok: 0.4 })
  })
})

function catchError(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}
