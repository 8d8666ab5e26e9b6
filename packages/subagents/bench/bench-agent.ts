import { makeAgent } from '../src/supervisor/__fixtures__/make-agent'

/** The caller the benchmarks delegate from: an orchestrator on the offline model that may delegate. */
export const benchAgent = makeAgent({ id: 'bench-lead', name: 'Bench Lead' })
