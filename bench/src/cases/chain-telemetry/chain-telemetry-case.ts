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
    // With the SDK: the chain's figure within 10 even at the far end of its noise (a run whose
    // noise is larger than the distance to the target has not shown it met), and the hop's
    // calls with the SDK, timed apart, within 10 of the hop too. Without: the calls timed
    // apart (the chain cannot resolve 1%).
    met: (baton) =>
      baton.value + Number(baton.details?.noisePercent) <= 10 &&
      Number(baton.details?.sdkCallsPercent) <= 10 &&
      Number(baton.details?.noSdkPercent) <= 1,
  },
  subjects: ['baton'],
  // Its process profiles each variant itself (chain-none, chain-api, ... .cpuprofile).
  profilesItself: true,
  load: async () => (await import('./chain-telemetry-subjects')).chainTelemetrySubjects,
}
