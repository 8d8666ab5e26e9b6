import { END, START } from '@langchain/langgraph'
import { timePerOperation } from '../../measure'
import { createInstantChatModel, createLooseGraph } from '../../peers/langgraph'
import { formatNumber } from '../../report/format-number'
import type { Figure, Size } from '../types'
import { hops } from './hops'

/** The chain as a line of nodes and as one node that loops, each hop a model call. */
export async function subject(size: Size): Promise<Figure> {
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
}
