import { hops } from '../chain/hops'
import type { BenchCase } from '../types'

/**
 * The delegation chain with an OpenTelemetry SDK registered (spans sampled, a batch span
 * processor, an exporter that drops what it is given) beside the same chain without one, in
 * one process, alternating, in CPU time per hop: the headline is the SDK's overhead in percent.
 */
export const chainTelemetryCase: BenchCase = {
  name: 'chain-telemetry',
  work: (size) =>
    `delegation chain with an OpenTelemetry SDK + batch exporter, % over none (${hops(size)} hops)`,
  unit: '% over no SDK',
  target: { text: '≤ 10', met: (baton) => baton.value <= 10 },
  subjects: ['baton'],
  load: async () => (await import('./chain-telemetry-subjects')).chainTelemetrySubjects,
}
