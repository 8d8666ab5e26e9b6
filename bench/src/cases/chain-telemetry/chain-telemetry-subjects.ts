import { createBudget, createStaticRegistry } from '@baton/core'
import { parsePlan, runPlan } from '@baton/mal'
import { context, propagation, trace } from '@opentelemetry/api'
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { benchAgentInput, benchWallet } from '../../fixtures'
import { createInstantModels } from '../../instant'
import { formatNumber } from '../../report/format-number'
import { assertDone } from '../assert-done'
import { hops } from '../chain/hops'
import type { Subjects } from '../types'

/** Takes every batch and drops it: the SDK's own cost, without a network in the figure. */
class DroppingExporter implements SpanExporter {
  spans = 0
  export(
    spans: Parameters<SpanExporter['export']>[0],
    done: Parameters<SpanExporter['export']>[1],
  ) {
    this.spans += spans.length
    done({ code: 0 })
  }
  async shutdown() {}
}

export const chainTelemetrySubjects: Subjects = {
  async baton(size) {
    const count = hops(size)
    const registry = createStaticRegistry([benchAgentInput])
    const models = createInstantModels()
    const plan = parsePlan({
      name: 'chain',
      steps: [
        ...Array.from({ length: count }, (_, index) => ({
          op: 'delegate' as const,
          saveAs: `s${index}`,
          agentWallet: benchWallet,
          prompt: `Step ${index}`,
        })),
        { op: 'stop' as const, output: `{{s${count - 1}}}` },
      ],
    })
    const run = async () =>
      assertDone(await runPlan(plan, { registry, models, budget: createBudget() }))
    // CPU time, not wall time: on a shared machine other processes' work is not ours.
    const measure = async () => {
      await run()
      let best = Number.POSITIVE_INFINITY
      for (let sample = 0; sample < 5; sample += 1) {
        const before = process.cpuUsage()
        await run()
        const used = process.cpuUsage(before)
        best = Math.min(best, (used.user + used.system) / count)
      }
      return best
    }
    const exporter = new DroppingExporter()
    const provider = new NodeTracerProvider({
      spanProcessors: [new BatchSpanProcessor(exporter, { maxQueueSize: 65_536 })],
    })
    // Alternating rounds, the best of each: the machine's noise falls on both sides alike.
    let none = Number.POSITIVE_INFINITY
    let traced = Number.POSITIVE_INFINITY
    for (let round = 0; round < 3; round += 1) {
      none = Math.min(none, await measure())
      provider.register()
      try {
        traced = Math.min(traced, await measure())
      } finally {
        // The other cases of a smoke run share this process: they run without an SDK.
        trace.disable()
        context.disable()
        propagation.disable()
      }
    }
    await provider.shutdown()
    if (exporter.spans === 0) throw new Error('the SDK exported no span')
    const overhead = ((traced - none) / none) * 100
    return {
      value: overhead,
      text: `${formatNumber(overhead)} (${formatNumber(none)} → ${formatNumber(traced)} CPU µs/hop)`,
      details: { noSdkMicroseconds: none, sdkMicroseconds: traced, spans: exporter.spans },
    }
  },
}
