export { createLooseGraph, type GraphState, type LooseGraph } from './loose-graph'
