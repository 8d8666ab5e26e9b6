import { type Tool, type ToolExecutionOptions, tool } from 'ai'
import { z } from 'zod'

// Made once: a zod schema costs far more to build than the tool around it.
const AskInput = z.object({ question: z.string().min(1) })

/**
 * The `ask_caller` tool: the sub-agent's turn ends with status `asking` and the question; the
 * caller's `sendAgent` answer becomes the tool's result and the sub-agent goes on. `ask` is
 * given the call's options too, so one tool can find whose question it is from them.
 *
 * @example
 * const tools = { ask_caller: createAskCallerTool((question) => waitForAnswer(question)) }
 */
export function createAskCallerTool(
  ask: (question: string, options: ToolExecutionOptions) => Promise<string>,
): Tool {
  return tool({
    description:
      'Asks the agent that gave you this task a question, when you cannot go on without its answer. Returns the answer.',
    inputSchema: AskInput,
    execute: async ({ question }, options) => ({ answer: await ask(question, options) }),
  })
}
