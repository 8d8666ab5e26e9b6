import { INSTANT_ANSWER } from '@baton/testing/instant-models'
import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage } from '@langchain/core/messages'
import type { ChatResult } from '@langchain/core/outputs'

/** The instant model for LangGraph.js: a LangChain chat model that answers "ok" at once. */
export class InstantChatModel extends BaseChatModel {
  _llmType(): string {
    return 'instant'
  }

  async _generate(): Promise<ChatResult> {
    return {
      generations: [{ text: INSTANT_ANSWER, message: new AIMessage(INSTANT_ANSWER) }],
      llmOutput: { tokenUsage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } },
    }
  }
}

/**
 * @example
 * const model = createInstantChatModel()
 * ;(await model.invoke('hi')).content // 'ok'
 */
export function createInstantChatModel(): InstantChatModel {
  return new InstantChatModel({})
}
