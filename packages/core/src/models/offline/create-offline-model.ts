import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider'
import { type OfflineReply, offlineReply, sleep } from './offline-reply'

/**
 * The deterministic `offline` model: no network, driven by `[[...]]` directives in the system
 * prompt and user messages, with usage of one token per four characters. Streamed, it sends
 * its text in chunks of 24 characters (`[[chunk-delay:MS]]` waits before each one).
 *
 * @example
 * const { text } = await generateText({ model: createOfflineModel(), prompt: '[[answer:42]]' })
 * // text === '42'
 */
export function createOfflineModel(modelId = 'default'): LanguageModelV3 {
  return new OfflineLanguageModel(modelId)
}

class OfflineLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3'
  readonly provider = 'offline'
  readonly modelId: string
  readonly supportedUrls = {}
  #calls = 0

  constructor(modelId: string) {
    this.modelId = modelId
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const reply = await offlineReply(options)
    const content: LanguageModelV3Content[] =
      reply.kind === 'text'
        ? [{ type: 'text', text: reply.text }]
        : [{ type: 'tool-call', ...pick(reply) }]
    return {
      content,
      finishReason: finishReason(reply),
      usage: usage(reply),
      warnings: [],
      response: { id: this.#nextId(), modelId: this.modelId, timestamp: new Date(0) },
    }
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const reply = await offlineReply(options)
    const parts: LanguageModelV3StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'response-metadata', id: this.#nextId(), modelId: this.modelId },
    ]
    if (reply.kind === 'text') {
      parts.push({ type: 'text-start', id: 'text-0' })
      for (const delta of reply.text.match(/[\s\S]{1,24}/g) ?? []) {
        parts.push({ type: 'text-delta', id: 'text-0', delta })
      }
      parts.push({ type: 'text-end', id: 'text-0' })
    } else {
      const id = reply.toolCallId
      parts.push(
        { type: 'tool-input-start', id, toolName: reply.toolName },
        { type: 'tool-input-delta', id, delta: reply.input },
        { type: 'tool-input-end', id },
        { type: 'tool-call', ...pick(reply) },
      )
    }
    parts.push({ type: 'finish', finishReason: finishReason(reply), usage: usage(reply) })
    const signal = options.abortSignal
    const delayMs = reply.chunkDelayMs ?? 0
    return {
      stream: new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          if (signal?.aborted) return controller.error(signal.reason)
          const part = parts.shift()
          if (!part) return controller.close()
          if (delayMs > 0 && (part.type === 'text-delta' || part.type === 'tool-input-delta')) {
            try {
              await sleep(delayMs, signal)
            } catch (error) {
              return controller.error(error)
            }
          }
          controller.enqueue(part)
        },
      }),
    }
  }

  #nextId(): string {
    this.#calls += 1
    return `offline-${this.#calls}`
  }
}

function pick(reply: Extract<OfflineReply, { kind: 'tool-call' }>) {
  return { toolCallId: reply.toolCallId, toolName: reply.toolName, input: reply.input }
}

function finishReason(reply: OfflineReply): LanguageModelV3FinishReason {
  if (reply.kind === 'tool-call') return { unified: 'tool-calls', raw: 'tool_calls' }
  return reply.truncated ? { unified: 'length', raw: 'length' } : { unified: 'stop', raw: 'stop' }
}

function usage(reply: OfflineReply): LanguageModelV3Usage {
  return {
    inputTokens: {
      total: reply.inputTokens,
      noCache: reply.inputTokens,
      cacheRead: 0,
      cacheWrite: 0,
    },
    outputTokens: { total: reply.outputTokens, text: reply.outputTokens, reasoning: 0 },
  }
}
