import { hops } from '../chain/hops'
import type { BenchCase } from '../types'

/**
 * The delegation chain with Baton's instrumentation switched off entirely, on the API with no
 * SDK, and with the Node SDK and a batch span processor (every span sampled, an exporter that
 * drops what it is given), in one process, in CPU time per hop: the headline is the SDK's
 * overhead in percent, the no-SDK overhead beside it.
 */
export const chainTelemetryCase: BenchCase = {
  name: 'chain-telemetry',
  work: (size) =>
    `delegation chain, % CPU per hop over no telemetry: OpenTelemetry SDK + batch exporter, and no SDK (${hops(size)} hops)`,
  unit: '% over no telemetry',
  target: {
    text: '≤ 10 with the SDK, ≤ 1 without',
    met: (baton) => baton.value <= 10 && Number(baton.details?.noSdkPercent) <= 1,
  },
  subjects: ['baton'],
  // Its process profiles each variant itself (chain-none, chain-api, ... .cpuprofile).
  profilesItself: true,
  load: async () => (await import('./chain-telemetry-subjects')).chainTelemetrySubjects,
}
