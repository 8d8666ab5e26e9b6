import type { LanguageModelV3CallOptions } from '@ai-sdk/provider'
import { promptCharacters } from '../models/offline/read-prompt'
import { toolDefinitionsLength } from './tool-definitions-length'

/**
 * Input tokens a call will be billed for, estimated before it is made. The offline model
 * counts exactly one token per four characters; real tokenizers may count more, and tool
 * definitions are sent too, so the estimate for them is generous.
 *
 * @example
 * estimateInputTokens({ prompt: [{ role: 'system', content: 'abcd' }] }, 'offline:default') // 1
 */
export function estimateInputTokens(
  params: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>,
  model: string,
): number {
  const characters = promptCharacters(params.prompt)
  if (model.startsWith('offline:')) return Math.ceil(characters / 4)
  const tools = params.tools?.length ? toolDefinitionsLength(params.tools) : 0
  return Math.ceil((characters + tools) / 3) + 16
}
