import { type Tool, tool } from 'ai'
import { z } from 'zod'

/**
 * The `ask_caller` tool: the sub-agent's turn ends with status `asking` and the question; the
 * caller's `sendAgent` answer becomes the tool's result and the sub-agent goes on.
 *
 * @example
 * const tools = { ask_caller: createAskCallerTool((question) => waitForAnswer(question)) }
 */
// Made once: a zod schema costs far more to build than the tool around it.
const AskInput = z.object({ question: z.string().min(1) })

export function createAskCallerTool(ask: (question: string) => Promise<string>): Tool {
  return tool({
    description:
      'Asks the agent that gave you this task a question, when you cannot go on without its answer. Returns the answer.',
    inputSchema: AskInput,
    execute: async ({ question }) => ({ answer: await ask(question) }),
  })
}
