import { Agent as OpenAIAgent, Runner } from '@openai/agents'
import { createInstantAgentsProvider } from '../../peers/agents'
import type { Size } from '../types'
import { measureFanOut } from './fanout-measure'

/** N runs of one agent, started together (the SDK's way to run agents in parallel). */
export function subject(size: Size) {
  const runner = new Runner({
    modelProvider: createInstantAgentsProvider(),
    tracingDisabled: true,
  })
  const agent = new OpenAIAgent({ name: 'worker', instructions: 'Do your part.' })
  return measureFanOut(size, async (width) => {
    const results = await Promise.all(
      Array.from({ length: width }, (_, index) => runner.run(agent, `Part ${index}`)),
    )
    return { done: results.filter((result) => result.finalOutput === 'ok').length }
  })
}
