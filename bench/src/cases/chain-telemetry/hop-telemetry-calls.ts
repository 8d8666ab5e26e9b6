import { startChatSpan, withAgentSpan } from '@baton/core'
import { SpanKind, type Tracer } from '@opentelemetry/api'
import { benchAgent } from '../../fixtures'

// What a hop's model call hands its `chat` span: a prompt, as the budget middleware does.
const call = {
  prompt: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Step 1' }] }],
  maxOutputTokens: 4096,
}
const outcome = { inputTokens: 12, outputTokens: 1, tokens: 13, costUsd: 0.0000013 }

/** Exactly the instrumentation calls one `delegate` hop makes, around an awaited nothing. */
export async function hopCalls(): Promise<void> {
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
 * The same two spans with the same attributes, made on the SDK's tracer directly, with no
 * Baton code in between: the least any instrumentation of a hop with these spans can cost.
 */
export function bareSdkCalls(tracer: Tracer): () => Promise<void> {
  return () =>
    tracer.startActiveSpan(
      `invoke_agent ${benchAgent.name}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.id': benchAgent.wallet,
          'gen_ai.agent.name': benchAgent.name,
          'baton.agent.model': benchAgent.model,
        },
      },
      async (agent) => {
        const chat = tracer.startSpan('chat ok', {
          kind: SpanKind.CLIENT,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.provider.name': 'instant',
            'gen_ai.request.model': 'ok',
          },
        })
        chat.setAttribute('baton.wallet', benchAgent.wallet)
        chat.setAttribute('gen_ai.request.max_tokens', call.maxOutputTokens)
        await undefined
        chat.setAttributes({
          'gen_ai.usage.input_tokens': outcome.inputTokens,
          'gen_ai.usage.output_tokens': outcome.outputTokens,
          'baton.cost_usd': outcome.costUsd,
        })
        chat.end()
        agent.end()
      },
    )
}

/** A state the calls are measured in (entered before its loop, left after) and its work. */
export type CallsState = { enter(): void; leave(): void; work: () => Promise<void> }

/**
 * The cost per hop of `on` (its work in its state) over `off`, in CPU µs, measured apart from the chain: a
 * tight loop of `iterations` in each state, alternating, best of `rounds` each; the difference
 * is what a hop pays. A tight loop's noise is a few nanoseconds, where the chain's (a hop of
 * tens of µs) is larger than a small effect.
 *
 * @example
 * const { perHop } = await measureHopTelemetryCalls({ rounds: 7, off, on })
 */
export async function measureHopTelemetryCalls(options: {
  rounds: number
  off: CallsState
  on: CallsState
  iterations?: number
}): Promise<{ perHop: number; off: number; on: number }> {
  const { rounds, iterations = 100_000 } = options
  const loop = async (work: () => Promise<void>) => {
    const before = process.cpuUsage()
    for (let index = 0; index < iterations; index += 1) await work()
    const used = process.cpuUsage(before)
    return (used.user + used.system) / iterations
  }
  const best = { off: Number.POSITIVE_INFINITY, on: Number.POSITIVE_INFINITY }
  for (let round = 0; round < rounds + 1; round += 1) {
    for (const way of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      options[way].enter()
      try {
        const spent = await loop(options[way].work)
        // The first round warms both up.
        if (round > 0) best[way] = Math.min(best[way], spent)
      } finally {
        options[way].leave()
      }
    }
  }
  return { perHop: best.on - best.off, off: best.off, on: best.on }
}
