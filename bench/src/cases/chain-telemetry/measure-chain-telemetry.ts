import { context, propagation, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'
import { startCpuProfile } from '../../measure'
import { chainRun } from '../chain/chain-run'
import { hops } from '../chain/hops'
import type { Figure, Size } from '../types'
import { bareSdkCalls, hopCalls, measureHopTelemetryCalls } from './hop-telemetry-calls'
import { setTelemetryOff, switchedModules } from './telemetry-switch'

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

/**
 * The ways the chain runs: `none`, Baton's instrumentation switched off (no call into
 * @opentelemetry/api: the code as it was before telemetry); `control`, the same again, whose
 * distance from `none` is the noise the machine leaves in the figures; `api`, the
 * instrumentation on the API with no SDK (what every user without an SDK runs); `context`,
 * the SDK's context manager alone (AsyncLocalStorage, no tracer: the part of the SDK's cost no
 * instrumentation can avoid); `sdk`, the Node SDK with a batch span processor and every span
 * sampled.
 */
const VARIANTS = ['none', 'api', 'control', 'context', 'sdk'] as const
type Variant = (typeof VARIANTS)[number]

function variants(provider: NodeTracerProvider): Record<Variant, { enter(): void; leave(): void }> {
  const disable = () => {
    trace.disable()
    context.disable()
    propagation.disable()
  }
  return {
    none: { enter: () => setTelemetryOff(true), leave: () => setTelemetryOff(false) },
    control: { enter: () => setTelemetryOff(true), leave: () => setTelemetryOff(false) },
    api: { enter() {}, leave() {} },
    context: {
      enter() {
        context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
        // AsyncLocalStorage hooks promises from its first use on, as at an SDK's first span.
        context.with(context.active(), () => undefined)
      },
      leave: disable,
    },
    sdk: { enter: () => provider.register(), leave: disable },
  }
}

const percentOver = (value: number, base: number) => ((value - base) / base) * 100

/**
 * The delegation chain in CPU time per hop under each variant, in one process, in rounds that
 * rotate the variants' order, the best sample of each kept: the machine's noise falls on all
 * of them alike. With `profileDirectory`, a CPU profile of each variant is written after.
 *
 * @example
 * const figure = await measureChainTelemetry('full')
 */
export async function measureChainTelemetry(
  size: Size,
  options: { profileDirectory?: string | undefined } = {},
): Promise<Figure> {
  if (switchedModules() === 0) throw new Error('the telemetry switch was not installed first')
  const count = hops(size)
  const run = chainRun(count)
  const rounds = size === 'full' ? 7 : 2
  const samples = size === 'full' ? 3 : 1
  // CPU time, not wall time: on a shared machine other processes' work is not ours.
  const sample = async () => {
    await run()
    let best = Number.POSITIVE_INFINITY
    for (let each = 0; each < samples; each += 1) {
      globalThis.gc?.()
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
  const ways = variants(provider)
  const best = Object.fromEntries(VARIANTS.map((variant) => [variant, Infinity])) as Record<
    Variant,
    number
  >
  for (let round = 0; round < rounds; round += 1) {
    for (let index = 0; index < VARIANTS.length; index += 1) {
      const variant = VARIANTS[(index + round) % VARIANTS.length]!
      ways[variant].enter()
      try {
        best[variant] = Math.min(best[variant], await sample())
      } finally {
        ways[variant].leave()
      }
    }
  }
  // Measured apart, against the chain's hop: the chain's own noise is larger than this effect.
  const off = { ...ways.none, work: hopCalls }
  const calls = await measureHopTelemetryCalls({ rounds, off, on: { ...ways.api, work: hopCalls } })
  // The same calls with the SDK, and the same spans made on the SDK's tracer with no Baton
  // code: what is the SDK's own and what Baton's wrappers add to it.
  const sdkCalls = await measureHopTelemetryCalls({
    rounds,
    iterations: 20_000,
    off,
    on: { ...ways.sdk, work: hopCalls },
  })
  const bareSdk = await measureHopTelemetryCalls({
    rounds,
    iterations: 20_000,
    off,
    on: { ...ways.sdk, work: bareSdkCalls(provider.getTracer('bench')) },
  })
  await provider.forceFlush()
  if (exporter.spans === 0) throw new Error('the SDK exported no span')
  if (options.profileDirectory) {
    for (const variant of VARIANTS) {
      ways[variant].enter()
      try {
        const stop = await startCpuProfile()
        for (let each = 0; each < 5; each += 1) await run()
        await stop(options.profileDirectory, `chain-${variant}`)
      } finally {
        ways[variant].leave()
      }
    }
  }
  await provider.shutdown()
  const api = percentOver(best.api, best.none)
  const sdk = percentOver(best.sdk, best.none)
  const contextOnly = percentOver(best.context, best.none)
  const direct = (calls.perHop / best.none) * 100
  const sdkDirect = (sdkCalls.perHop / best.none) * 100
  // Both ways round: the larger distance between two measurements of the same code.
  const noise = Math.max(
    Math.abs(percentOver(best.control, best.none)),
    Math.abs(percentOver(best.none, best.control)),
  )
  const fixed = (value: number) => value.toFixed(1)
  return {
    value: sdk,
    text:
      `${fixed(sdk)} with the SDK, ${direct.toFixed(2)} with no SDK ` +
      `(its calls alone: ${calls.perHop.toFixed(3)} µs of a ${fixed(best.none)} µs hop; ` +
      `chain: ${fixed(best.none)} → ${fixed(best.api)} no SDK (${fixed(api)}) → ` +
      `${fixed(best.sdk)} SDK CPU µs/hop; its context manager alone ${fixed(contextOnly)}; ` +
      `noise ±${fixed(noise)}; with the SDK, its calls alone ${fixed(sdkCalls.perHop)} µs ` +
      `(${fixed(sdkDirect)}%), the same spans on the SDK's tracer ` +
      `with no Baton code ${fixed(bareSdk.perHop)} µs (${fixed((bareSdk.perHop / best.none) * 100)}%))`,
    details: {
      noTelemetryMicroseconds: best.none,
      noSdkMicroseconds: best.api,
      contextManagerMicroseconds: best.context,
      sdkMicroseconds: best.sdk,
      controlMicroseconds: best.control,
      noisePercent: noise,
      // The target's figure: the no-SDK calls' cost measured apart, over the hop.
      noSdkPercent: direct,
      noSdkChainPercent: api,
      noSdkCallsMicroseconds: calls.perHop,
      callsOffMicroseconds: calls.off,
      callsOnMicroseconds: calls.on,
      contextManagerPercent: contextOnly,
      sdkPercent: sdk,
      sdkCallsMicroseconds: sdkCalls.perHop,
      // The SDK target's second figure: the hop's calls with the SDK, timed apart, over the hop.
      sdkCallsPercent: sdkDirect,
      bareSdkCallsMicroseconds: bareSdk.perHop,
      spans: exporter.spans,
    },
  }
}
