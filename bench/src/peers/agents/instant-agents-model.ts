import { INSTANT_ANSWER } from '@baton/testing/instant-models'
import {
  type Model,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  Usage,
} from '@openai/agents'

/**
 * The instant model for OpenAI Agents JS. It answers "ok" at once, except that an agent
 * offered a hand-off takes the first one (a function call, as a real model would make), so a
 * chain of agents hands the run along without any model work.
 */
export class InstantAgentsModel implements Model {
  #calls = 0

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.#calls += 1
    const handoff = request.handoffs[0]
    const usage = new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 })
    if (handoff) {
      return {
        usage,
        output: [
          {
            type: 'function_call',
            callId: `call-${this.#calls}`,
            name: handoff.toolName,
            arguments: '{}',
            status: 'completed',
          },
        ],
      }
    }
    return {
      usage,
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: INSTANT_ANSWER }],
        },
      ],
    }
  }

  // biome-ignore lint/correctness/useYield: the benchmarks never stream; asking to is a mistake.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the instant model does not stream')
  }
}

/**
 * A `ModelProvider` whose every model is the instant one: no network, no API key.
 *
 * @example
 * const runner = new Runner({ modelProvider: createInstantAgentsProvider(), tracingDisabled: true })
 */
export function createInstantAgentsProvider(): ModelProvider {
  const model = new InstantAgentsModel()
  return { getModel: () => model }
}
