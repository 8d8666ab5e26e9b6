import { Annotation, StateGraph } from '@langchain/langgraph'

/**
 * LangGraph's builder types its node names from the calls that add them, which a graph of N
 * generated nodes cannot spell out; the benchmarks build through this string-keyed view of it.
 */
export type LooseGraph = {
  addNode(name: string, action: (state: GraphState) => unknown): LooseGraph
  addEdge(from: string, to: string): LooseGraph
  addConditionalEdges(from: string, route: (state: GraphState) => unknown): LooseGraph
  compile(): {
    invoke(input: Partial<GraphState>, config?: { recursionLimit?: number }): Promise<GraphState>
  }
}

export type GraphState = { last: string; count: number; results: string[] }

const State = Annotation.Root({
  last: Annotation<string>,
  count: Annotation<number>,
  results: Annotation<string[]>({
    reducer: (left, right) => left.concat(right),
    default: () => [],
  }),
})

/**
 * A LangGraph.js state graph over `{ last, count, results }` (`results` appends), to add
 * generated nodes to.
 *
 * @example
 * const graph = createLooseGraph().addNode('a', work).addEdge('__start__', 'a').compile()
 */
export function createLooseGraph(): LooseGraph {
  return new StateGraph(State) as unknown as LooseGraph
}
