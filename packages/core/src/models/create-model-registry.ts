import type { LanguageModelV3 } from '@ai-sdk/provider'
import { wrapLanguageModel } from 'ai'
import { z } from 'zod'
import { ValidationError } from '../errors/baton-error'
import { MODEL_REF_PATTERN, ModelRef } from '../schemas/agent'
import { issuesOf } from '../schemas/parse'
import { builtinProviders, KEY_VARIABLES, type ModelEnvironment } from './builtin-providers'
import { ProviderNotConfiguredError, UnknownProviderError } from './model-errors'
import { defaultPriceTable } from './price-table'
import { providerCallMiddleware } from './provider-call-middleware'
import type { ModelProvider, ModelRegistry, PriceTable } from './types'

export type CreateModelRegistryOptions = {
  /** Where provider settings are read (default: `process.env`). */
  env?: Record<string, string | undefined>
  /** Extra providers by name; they take precedence over the built-in ones. */
  providers?: Record<string, ModelProvider>
  /** Merged over `defaultPriceTable` for runs resolved through this registry. */
  prices?: PriceTable
  /**
   * Retries of a built-in network provider's retryable failure (429, 5xx, 408, 409, no
   * answer), unless `languageModel(ref, { maxRetries })` says otherwise (default 2).
   */
  maxRetries?: number
}

const OptionalUrl = z.preprocess(
  (value) => (value === '' ? undefined : value),
  z.string().url('must be a URL').optional(),
)

const Environment = z.object({
  BATON_OPENAI_BASE_URL: OptionalUrl,
  BATON_OPENAI_API_KEY: z.string().optional(),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: OptionalUrl,
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: OptionalUrl,
  OLLAMA_BASE_URL: OptionalUrl,
})

const Retries = z.number().int('must be a whole number').min(0, 'must be 0 or more')

const Price = z.object({
  inputPerMTok: z.number().finite().nonnegative(),
  outputPerMTok: z.number().finite().nonnegative(),
})

/**
 * Resolves `provider:model-id` to an AI SDK language model: `offline` (always), `openai-compatible`
 * (`BATON_OPENAI_BASE_URL`, optional `BATON_OPENAI_API_KEY`), `openai` (`OPENAI_API_KEY`, optional
 * `OPENAI_BASE_URL`), `anthropic` (`ANTHROPIC_API_KEY`, optional `ANTHROPIC_BASE_URL`), `ollama`
 * (`OLLAMA_BASE_URL`, default local), plus your own. The network providers' calls are retried
 * and their failures typed (`MODEL_AUTH_FAILED`, `MODEL_RATE_LIMITED`, `MODEL_UNAVAILABLE`).
 *
 * @example
 * const models = createModelRegistry({ env: { OPENAI_API_KEY: 'sk-...' } })
 * const model = models.languageModel('openai:gpt-4o-mini')
 */
export function createModelRegistry(options: CreateModelRegistryOptions = {}): ModelRegistry {
  const parsed = Environment.safeParse(options.env ?? process.env)
  if (!parsed.success) throw new ValidationError('model environment', issuesOf(parsed.error))
  const env: ModelEnvironment = parsed.data
  const custom = options.providers ?? {}
  const prices = Object.freeze({
    ...defaultPriceTable,
    ...z.record(z.string(), Price).parse(options.prices ?? {}),
  })
  const maxRetries = parseRetries(options.maxRetries, 'maxRetries') ?? 2
  // Every configured key is hidden from every provider's errors, not only its own.
  const secrets = KEY_VARIABLES.flatMap((name) => env[name] ?? [])
  const resolved = new Map<string, ((modelId: string) => LanguageModelV3) | undefined>()
  const resolve = (name: string) => {
    if (!resolved.has(name)) resolved.set(name, builtinOf(name)?.create(env))
    return resolved.get(name)
  }
  const known = () => [...new Set([...Object.keys(builtinProviders), ...Object.keys(custom)])]

  return {
    prices,
    providers: () =>
      known().filter((name) => Object.hasOwn(custom, name) || resolve(name) !== undefined),
    languageModel(ref, settings = {}) {
      // A well-formed reference is told by the schema's own pattern; zod names what is wrong.
      if (typeof ref !== 'string' || !MODEL_REF_PATTERN.test(ref)) {
        const check = ModelRef.safeParse(ref)
        if (!check.success) throw new ValidationError('model reference', issuesOf(check.error))
      }
      const separator = ref.indexOf(':')
      const provider = ref.slice(0, separator)
      const modelId = ref.slice(separator + 1)
      // Own entries only: `constructor:x` names no provider, not what every object inherits.
      const own = Object.hasOwn(custom, provider) ? custom[provider] : undefined
      if (own) return typeof own === 'function' ? own(modelId) : own.languageModel(modelId)
      const builtin = builtinOf(provider)
      if (!builtin) throw new UnknownProviderError({ ref, provider, known: known() })
      const create = resolve(provider)
      if (!create) {
        throw new ProviderNotConfiguredError({ ref, provider, variable: builtin.variable ?? '' })
      }
      if (!builtin.network) return create(modelId)
      return wrapLanguageModel({
        model: create(modelId),
        middleware: providerCallMiddleware({
          provider,
          variable: builtin.keyVariable,
          secrets,
          maxRetries: parseRetries(settings.maxRetries, 'languageModel maxRetries') ?? maxRetries,
        }),
      })
    },
  }
}

function parseRetries(value: number | undefined, what: string): number | undefined {
  if (value === undefined) return undefined
  const check = Retries.safeParse(value)
  if (!check.success) throw new ValidationError(what, issuesOf(check.error))
  return check.data
}

/** The built-in provider named `name`, if there is one (never an inherited member). */
function builtinOf(name: string) {
  return Object.hasOwn(builtinProviders, name) ? builtinProviders[name] : undefined
}
