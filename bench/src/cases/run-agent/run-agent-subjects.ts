import { createBudget, runAgent } from '@baton/core'
import { END, START } from '@langchain/langgraph'
import { Agent as OpenAIAgent, Runner } from '@openai/agents'
import { benchAgent } from '../../fixtures'
import {
  createInstantAgentsProvider,
  createInstantChatModel,
  createInstantLanguageModel,
  createInstantModels,
} from '../../instant'
import { timePerOperation } from '../../measure'
import { createLooseGraph } from '../../peers'
import { formatNumber } from '../../report/format-number'
import type { Figure, Subjects } from '../types'
import { runCount } from './run-agent-case'

async function loop(count: number, call: () => Promise<unknown>): Promise<Figure> {
  const calls = async (times: number) => {
    for (let index = 0; index < times; index += 1) await call()
  }
  // Warmed up on a tenth of the calls: the slowest subject takes milliseconds a call.
  await calls(Math.ceil(count / 10))
  const { microseconds, cpuMicroseconds } = await timePerOperation({
    operations: count,
    warmUp: false,
    work: () => calls(count),
  })
  // CPU time beside it: on a shared machine, wall time also counts the waits for a core.
  return {
    value: microseconds,
    text: `${formatNumber(microseconds)} (CPU ${formatNumber(cpuMicroseconds)})`,
    details: { cpuMicroseconds },
  }
}

/** One agent run with one instant model call, awaited before the next. */
export const runAgentSubjects: Subjects = {
  bare: (size) => {
    const model = createInstantLanguageModel()
    return loop(runCount(size), async () => model.doGenerate({ prompt: [] }))
  },

  // A one-node graph whose node calls the model: the smallest LangGraph agent run.
  langgraph: (size) => {
    const model = createInstantChatModel()
    const graph = createLooseGraph()
      .addNode('agent', async () => ({ last: String((await model.invoke('Hi')).content) }))
      .addEdge(START, 'agent')
      .addEdge('agent', END)
      .compile()
    return loop(runCount(size), () => graph.invoke({ last: '' }))
  },

  agents: (size) => {
    const runner = new Runner({
      modelProvider: createInstantAgentsProvider(),
      tracingDisabled: true,
    })
    const agent = new OpenAIAgent({ name: 'worker', instructions: 'Answer.' })
    return loop(runCount(size), () => runner.run(agent, 'Hi'))
  },

  baton: (size) => {
    const models = createInstantModels()
    const budget = createBudget()
    return loop(runCount(size), () => runAgent(benchAgent, 'Hi', { budget, models }))
  },
}
