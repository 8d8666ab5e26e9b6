import type {
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider'
import type { AgentDelta } from './types'

type Block = { type: 'text' | 'reasoning'; text: string }

const noUsage: LanguageModelV3Usage = {
  inputTokens: {
    total: undefined,
    noCache: undefined,
    cacheRead: undefined,
    cacheWrite: undefined,
  },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
}

/**
 * Reads a streamed model call to its end, handing each text and reasoning delta and each tool
 * call to `onDelta` as it comes, and answers what `doGenerate` would have: the content in
 * order (text and reasoning joined per block), the finish reason and the usage of the finish
 * part. An `error` part, or a stream that errors, rejects.
 *
 * @example
 * const result = await collectStream({ stream, step: 0, onDelta: (delta) => print(delta) })
 */
export async function collectStream(options: {
  stream: ReadableStream<LanguageModelV3StreamPart>
  step: number
  onDelta: (delta: AgentDelta) => void
}): Promise<
  Pick<LanguageModelV3GenerateResult, 'content' | 'finishReason' | 'usage' | 'response'>
> {
  const { step, onDelta } = options
  const content: LanguageModelV3Content[] = []
  // Open text and reasoning blocks by id, so interleaved blocks keep their own text.
  const open = new Map<string, Block>()
  let finishReason: LanguageModelV3FinishReason = { unified: 'other', raw: undefined }
  let usage = noUsage
  let response: LanguageModelV3GenerateResult['response']
  const reader = options.stream.getReader()
  try {
    for (;;) {
      const { done, value: part } = await reader.read()
      if (done) break
      switch (part.type) {
        case 'text-start':
        case 'reasoning-start': {
          const type = part.type === 'text-start' ? 'text' : 'reasoning'
          const entry: Block = { type, text: '' }
          open.set(`${type}:${part.id}`, entry)
          content.push(entry as LanguageModelV3Content)
          break
        }
        case 'text-delta':
        case 'reasoning-delta': {
          const type = part.type === 'text-delta' ? 'text' : 'reasoning'
          let entry = open.get(`${type}:${part.id}`)
          if (!entry) {
            // A provider that sends deltas without a start part still gets its text kept.
            entry = { type, text: '' }
            open.set(`${type}:${part.id}`, entry)
            content.push(entry as LanguageModelV3Content)
          }
          entry.text += part.delta
          if (part.delta.length > 0) onDelta({ type: part.type, step, text: part.delta })
          break
        }
        case 'tool-call':
          content.push(part)
          if (!part.providerExecuted) {
            onDelta({
              type: 'tool-call',
              step,
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              input: parseInput(part.input),
            })
          }
          break
        case 'tool-result':
        case 'file':
        case 'source':
        case 'tool-approval-request':
          content.push(part)
          break
        case 'response-metadata':
          response = {
            ...(part.id === undefined ? {} : { id: part.id }),
            ...(part.modelId === undefined ? {} : { modelId: part.modelId }),
            ...(part.timestamp === undefined ? {} : { timestamp: part.timestamp }),
          }
          break
        case 'finish':
          finishReason = part.finishReason
          usage = part.usage
          // The call is over (and paid for): whatever follows, an abort its own charge caused
          // included, is no longer its business.
          await reader.cancel().catch(() => {})
          return { content, finishReason, usage, ...(response ? { response } : {}) }
        case 'error':
          throw part.error
        default:
          break
      }
    }
  } catch (error) {
    // Cancelled, so whatever holds the call (its budget reservation) learns that it is over.
    await reader.cancel(error).catch(() => {})
    throw error
  }
  reader.releaseLock()
  return { content, finishReason, usage, ...(response ? { response } : {}) }
}

function parseInput(input: string): unknown {
  try {
    return JSON.parse(input)
  } catch {
    return input
  }
}
