import { END, Send, START } from '@langchain/langgraph'
import { createInstantChatModel, createLooseGraph } from '../../peers/langgraph'
import type { Size } from '../types'
import { measureFanOut } from './fanout-measure'

/** The Send API: one node fans out to N `worker` runs, their answers reduced into `results`. */
export function subject(size: Size) {
  const model = createInstantChatModel()
  let width = 0
  const graph = createLooseGraph()
    .addNode('plan', () => ({}))
    .addNode('worker', async (state) => ({
      results: [String((await model.invoke(`Part ${state.count}`)).content)],
    }))
    .addEdge(START, 'plan')
    .addConditionalEdges('plan', () =>
      Array.from({ length: width }, (_, index) => new Send('worker', { count: index })),
    )
    .addEdge('worker', END)
    .compile()
  return measureFanOut(size, async (next) => {
    width = next
    const state = await graph.invoke({ results: [] })
    return { done: state.results.length }
  })
}
