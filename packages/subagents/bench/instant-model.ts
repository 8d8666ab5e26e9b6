import type { ModelRegistry } from '@baton/core'
import type { SubagentRunner } from '@baton/subagents'

type LanguageModel = ReturnType<ModelRegistry['languageModel']>
type CallOptions = Parameters<LanguageModel['doGenerate']>[0]
type GenerateResult = Awaited<ReturnType<LanguageModel['doGenerate']>>

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
}

/**
 * A model that answers at once, so a benchmark measures the supervisor and not a model. It
 * answers "ok", except for a task `nest:<n>` with n > 0: then it delegates `nest:<n-1>`, waits
 * for it, and answers "ok".
 */
export function createInstantModel(): LanguageModel {
  let calls = 0
  return {
    specificationVersion: 'v3',
    provider: 'instant',
    modelId: 'ok',
    supportedUrls: {},
    async doGenerate(options: CallOptions): Promise<GenerateResult> {
      calls += 1
      const last = options.prompt.at(-1)
      const response = { id: `instant-${calls}`, modelId: 'ok', timestamp: new Date(0) }
      const call = (toolName: string, input: object): GenerateResult => ({
        content: [
          {
            type: 'tool-call',
            toolCallId: `call-${calls}`,
            toolName,
            input: JSON.stringify(input),
          },
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
        content: [{ type: 'text', text: 'ok' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
        response,
      }
    },
    async doStream() {
      throw new Error('the instant model only generates')
    },
  }
}

/** A registry whose `instant:ok` is the instant model. */
export function instantModels(): ModelRegistry {
  const model = createInstantModel()
  return { languageModel: () => model, providers: () => ['instant'] }
}

/**
 * A runner that plays the instant model without `runAgent`: it calls the tools itself, so a
 * benchmark of it measures the supervisor alone (no model loop, no tool schemas).
 */
export function createInstantRunner(): SubagentRunner {
  return {
    filesOnlyThroughTools: true,
    async run(turn) {
      const last = turn.messages.at(-1)
      const text = typeof last?.content === 'string' ? last.content : ''
      const depth = Number(/nest:(\d+)/.exec(text)?.[1] ?? 0)
      if (depth > 0) {
        const context = { toolCallId: 'call', messages: [], abortSignal: turn.signal }
        await turn.tools.delegate_agent?.execute?.({ task: `nest:${depth - 1}` }, context)
        await turn.tools.wait_agents?.execute?.({}, context)
      }
      return { text: 'ok', messages: [] }
    },
  }
}
