import type { Agent } from '@baton/core'
import { jsonSchema, Output } from 'ai'

/**
 * The structured output an agent's card asks of its model (`outputSchema`), for `runAgent`'s
 * `output` option; none when the card has no output schema.
 *
 * @example
 * const output = cardOutput(agent)
 * const result = await runAgent(agent, prompt, { budget, ...(output ? { output } : {}) })
 */
export function cardOutput(agent: Agent) {
  const schema = agent.agentCard.outputSchema
  return schema ? Output.object({ schema: jsonSchema(schema), name: 'answer' }) : undefined
}

/**
 * The answer text of a run that may have had structured output: its JSON, else the text.
 *
 * @example
 * answerText({ text: 'ok', output: { risk: 'low' } }) // '{"risk":"low"}'
 */
export function answerText(result: { text: string; output?: unknown }): string {
  return result.output === undefined ? result.text : JSON.stringify(result.output)
}
