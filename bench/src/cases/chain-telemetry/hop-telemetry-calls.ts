import { startChatSpan, withAgentSpan } from '@baton/core'
import { benchAgent } from '../../fixtures'
import { setTelemetryOff } from './telemetry-switch'

// What a hop's model call hands its `chat` span: a prompt, as the budget middleware does.
const call = {
  prompt: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Step 1' }] }],
  maxOutputTokens: 4096,
}
const outcome = { inputTokens: 12, outputTokens: 1, tokens: 13, costUsd: 0.0000013 }

/** Exactly the instrumentation calls one `delegate` hop makes, around an awaited nothing. */
async function hopCalls(): Promise<void> {
  await withAgentSpan(
    { wallet: benchAgent.wallet, name: benchAgent.name, model: benchAgent.model },
    async () => {
      const chat = startChatSpan({ model: benchAgent.model, call, wallet: benchAgent.wallet })
      await undefined
      chat.finish(outcome)
    },
  )
}

/**
 * The no-SDK instrumentation's own cost per hop, in CPU µs, measured apart from the chain: the
 * calls one hop makes (`invoke_agent` around a `chat` span) in a tight loop with the
 * instrumentation on the API (no SDK) and switched off, alternating, best of `rounds` each; the
 * difference is what a hop pays. A tight loop's noise is a few nanoseconds, where the chain's
 * (a hop of tens of µs) is larger than the effect.
 *
 * @example
 * const { perHop } = await measureHopTelemetryCalls(7)
 */
export async function measureHopTelemetryCalls(
  rounds: number,
  iterations = 100_000,
): Promise<{ perHop: number; off: number; on: number }> {
  const loop = async () => {
    const before = process.cpuUsage()
    for (let index = 0; index < iterations; index += 1) await hopCalls()
    const used = process.cpuUsage(before)
    return (used.user + used.system) / iterations
  }
  const best = { off: Number.POSITIVE_INFINITY, on: Number.POSITIVE_INFINITY }
  for (let round = 0; round < rounds + 1; round += 1) {
    for (const way of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      setTelemetryOff(way === 'off')
      try {
        const spent = await loop()
        // The first round warms both up.
        if (round > 0) best[way] = Math.min(best[way], spent)
      } finally {
        setTelemetryOff(false)
      }
    }
  }
  return { perHop: best.on - best.off, off: best.off, on: best.on }
}
