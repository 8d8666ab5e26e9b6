import { END, START } from '@langchain/langgraph'
import { type HandoffInputData, handoff, Agent as OpenAIAgent, Runner } from '@openai/agents'
import {
  createInstantAgentsProvider,
  createInstantChatModel,
  createInstantLanguageModel,
} from '../../instant'
import { timePerOperation } from '../../measure'
import { createLooseGraph } from '../../peers'
import { formatNumber } from '../../report/format-number'
import { timedFigure } from '../../report/timed-figure'
import type { Subjects } from '../types'
import { chainRun } from './chain-run'
import { hops } from './hops'

/** Each hand-off sees only the run's original input, as each MAL `delegate` sees only its prompt. */
function trimHistory(data: HandoffInputData): HandoffInputData {
  const first =
    typeof data.inputHistory === 'string' ? data.inputHistory : data.inputHistory.slice(0, 1)
  return { ...data, inputHistory: first, preHandoffItems: [], newItems: [] }
}

function agentsChain(count: number, trimmed: boolean): OpenAIAgent {
  let next: OpenAIAgent | undefined
  for (let index = count - 1; index >= 0; index -= 1) {
    const target = next
    const handoffs = target
      ? [trimmed ? handoff(target, { inputFilter: trimHistory }) : target]
      : []
    next = new OpenAIAgent({ name: `agent_${index}`, instructions: 'Hand on.', handoffs })
  }
  return next!
}

/** Each hop is one model call on the instant model, passed on to the next. */
export const chainSubjects: Subjects = {
  async bare(size) {
    const model = createInstantLanguageModel()
    const count = hops(size)
    const { microseconds } = await timePerOperation({
      operations: count,
      work: async () => {
        for (let index = 0; index < count; index += 1) await model.doGenerate({ prompt: [] })
      },
    })
    return { value: microseconds, text: formatNumber(microseconds) }
  },

  async langgraph(size) {
    const model = createInstantChatModel()
    const count = hops(size)
    const node = async (state: { count: number }) => {
      const reply = await model.invoke(`Step ${state.count}`)
      return { last: String(reply.content), count: state.count + 1 }
    }
    const line = createLooseGraph()
    for (let index = 0; index < count; index += 1) line.addNode(`n${index}`, node)
    line.addEdge(START, 'n0')
    for (let index = 1; index < count; index += 1) line.addEdge(`n${index - 1}`, `n${index}`)
    line.addEdge(`n${count - 1}`, END)
    const lineGraph = line.compile()
    const loopGraph = createLooseGraph()
      .addNode('hop', node)
      .addEdge(START, 'hop')
      .addConditionalEdges('hop', (state) => (state.count < count ? 'hop' : END))
      .compile()
    const config = { recursionLimit: count + 10 }
    const timeOf = async (graph: typeof lineGraph) =>
      (
        await timePerOperation({
          operations: count,
          work: () => graph.invoke({ count: 0, last: '' }, config),
        })
      ).microseconds
    const lineUs = await timeOf(lineGraph)
    const loopUs = await timeOf(loopGraph)
    return {
      value: Math.min(lineUs, loopUs),
      text: `${formatNumber(lineUs)} (line) / ${formatNumber(loopUs)} (loop)`,
      details: { lineMicroseconds: lineUs, loopMicroseconds: loopUs },
    }
  },

  async agents(size) {
    const count = hops(size)
    const runner = new Runner({
      modelProvider: createInstantAgentsProvider(),
      tracingDisabled: true,
    })
    const runChain = async (first: OpenAIAgent, length: number) => {
      const result = await runner.run(first, 'Go', { maxTurns: length + 10 })
      if (result.lastAgent?.name !== `agent_${length - 1}`) {
        throw new Error(`the chain stopped at ${result.lastAgent?.name}`)
      }
    }
    const timeOf = async (trimmed: boolean) => {
      const first = agentsChain(count, trimmed)
      // The default history grows with every hand-off (a full chain takes seconds): it warms
      // up on a short chain and is timed once.
      if (!trimmed) await runChain(agentsChain(Math.min(count, 50), false), Math.min(count, 50))
      return (
        await timePerOperation({
          operations: count,
          ...(trimmed ? {} : { minMs: 0, warmUp: false }),
          work: () => runChain(first, count),
        })
      ).microseconds
    }
    const trimmedUs = await timeOf(true)
    const defaultUs = await timeOf(false)
    return {
      value: Math.min(trimmedUs, defaultUs),
      text: `${formatNumber(trimmedUs)} (trimmed history) / ${formatNumber(defaultUs)} (default)`,
      details: { trimmedMicroseconds: trimmedUs, defaultMicroseconds: defaultUs },
    }
  },

  async baton(size) {
    const count = hops(size)
    const run = chainRun(count)
    // The first chain's figure beside it: what a process pays before V8 has optimised the path.
    return timedFigure(await timePerOperation({ operations: count, work: run }), 'first chain')
  },
}
