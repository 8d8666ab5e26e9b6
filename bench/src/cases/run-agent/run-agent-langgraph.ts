import { END, START } from '@langchain/langgraph'
import { createInstantChatModel, createLooseGraph } from '../../peers/langgraph'
import type { Size } from '../types'
import { timeRunLoop } from './run-agent-loop'

/** A one-node graph whose node calls the model: the smallest LangGraph agent run. */
export function subject(size: Size) {
  const model = createInstantChatModel()
  const graph = createLooseGraph()
    .addNode('agent', async () => ({ last: String((await model.invoke('Hi')).content) }))
    .addEdge(START, 'agent')
    .addEdge('agent', END)
    .compile()
  return timeRunLoop(size, () => graph.invoke({ last: '' }))
}
