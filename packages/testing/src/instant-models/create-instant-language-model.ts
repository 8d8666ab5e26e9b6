import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from '@ai-sdk/provider'

/** What the instant model answers, to everyone. */
export const INSTANT_ANSWER = 'ok'

export type InstantModelOptions = {
  /** Default `ok`. */
  modelId?: string
  /** Tokens it reports per call (default 1 in, 1 out). */
  inputTokens?: number
  outputTokens?: number
  /**
   * Plays a coordinator for the sub-agent benchmarks: a task `nest:<n>` with n > 0 calls the
   * tool `delegate_agent` with `nest:<n-1>`, then `wait_agents`, then answers. Such a model
   * only generates.
   */
  nested?: boolean
}

/**
 * A `LanguageModelV3` that answers "ok" at once, without reading its prompt (unless `nested`):
 * whatever a benchmark measures on top of it is the runtime's own cost, not the model's. It
 * streams the same answer.
 *
 * @example
 * const model = createInstantLanguageModel({ inputTokens: 10 })
 * const result = await model.doGenerate({ prompt: [] })
 * result.content // [{ type: 'text', text: 'ok' }]
 */
export function createInstantLanguageModel({
  modelId = 'ok',
  inputTokens = 1,
  outputTokens = 1,
  nested = false,
}: InstantModelOptions = {}): LanguageModelV3 {
  const usage: LanguageModelV3Usage = {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
  }
  const answer: LanguageModelV3GenerateResult = {
    content: [{ type: 'text', text: INSTANT_ANSWER }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  }
  let calls = 0
  return {
    specificationVersion: 'v3',
    provider: 'instant',
    modelId,
    supportedUrls: {},
    async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
      if (!nested) return answer
      calls += 1
      return nestedTurn({ options, calls, modelId, usage })
    },
    async doStream(): Promise<LanguageModelV3StreamResult> {
      if (nested) throw new Error('the nested instant model only generates')
      const parts: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 'text-0' },
        { type: 'text-delta', id: 'text-0', delta: INSTANT_ANSWER },
        { type: 'text-end', id: 'text-0' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
      ]
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part)
            controller.close()
          },
        }),
      }
    },
  }
}

/** One turn of the nested coordinator: delegate `nest:<n-1>`, then wait, then answer. */
function nestedTurn({
  options,
  calls,
  modelId,
  usage,
}: {
  options: LanguageModelV3CallOptions
  calls: number
  modelId: string
  usage: LanguageModelV3Usage
}): LanguageModelV3GenerateResult {
  const last = options.prompt.at(-1)
  const response = { id: `instant-${calls}`, modelId, timestamp: new Date(0) }
  const call = (toolName: string, input: object): LanguageModelV3GenerateResult => ({
    content: [
      { type: 'tool-call', toolCallId: `call-${calls}`, toolName, input: JSON.stringify(input) },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
    response,
  })
  if (last?.role === 'tool') {
    const result = last.content.find((part) => part.type === 'tool-result')
    if (result?.toolName === 'delegate_agent') return call('wait_agents', {})
  } else if (last?.role === 'user') {
    const text = last.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
    const depth = Number(/nest:(\d+)/.exec(text)?.[1] ?? 0)
    if (depth > 0) return call('delegate_agent', { task: `nest:${depth - 1}` })
  }
  return {
    content: [{ type: 'text', text: INSTANT_ANSWER }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
    response,
  }
}
