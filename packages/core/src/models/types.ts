import type { LanguageModelV3 } from '@ai-sdk/provider'

/** Price per million tokens, in USD. */
export type ModelPrice = { inputPerMTok: number; outputPerMTok: number }
/** Keys are `provider:model-id` or `provider:*`. */
export type PriceTable = Record<string, ModelPrice>

export interface ModelRegistry {
  /**
   * Resolves `provider:model-id` to an AI SDK language model; unknown or unconfigured providers
   * throw. `maxRetries` overrides the registry's retries for the network providers' calls.
   */
  languageModel(ref: string, options?: { maxRetries?: number | undefined }): LanguageModelV3
  /** The providers that are configured. */
  providers(): string[]
  /** The price table runs resolved through this registry use (default: `defaultPriceTable`). */
  readonly prices?: Readonly<PriceTable>
}

/** A source of language models: an AI SDK provider, or a function of the model id. */
export type ModelProvider =
  | { languageModel(modelId: string): LanguageModelV3 }
  | ((modelId: string) => LanguageModelV3)
