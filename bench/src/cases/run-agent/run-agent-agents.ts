import { Agent as OpenAIAgent, Runner } from '@openai/agents'
import { createInstantAgentsProvider } from '../../peers/agents'
import type { Size } from '../types'
import { timeRunLoop } from './run-agent-loop'

/** One run of one agent with no tools. */
export function subject(size: Size) {
  const runner = new Runner({
    modelProvider: createInstantAgentsProvider(),
    tracingDisabled: true,
  })
  const agent = new OpenAIAgent({ name: 'worker', instructions: 'Answer.' })
  return timeRunLoop(size, () => runner.run(agent, 'Hi'))
}
