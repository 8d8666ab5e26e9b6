import {
  BatonError,
  type Budget,
  BudgetCharger,
  defaultPriceTable,
  type ModelRegistry,
  type PriceTable,
} from '@baton/core'
import { ModelCallError } from './run-errors'

export type CallModelOptions = {
  models: ModelRegistry
  /** `provider:model-id`. */
  model: string
  prompt: string
  system?: string
  temperature?: number
  budget: Budget
  signal?: AbortSignal
  /** Who the spend is attributed to. */
  wallet: string
  prices?: Readonly<PriceTable>
  /** Streams the call (`doStream`): each piece of its text is handed here as it comes. */
  onText?: (text: string) => void
}

export type CallModelResult = { text: string; inputTokens: number; outputTokens: number }

type LanguageModel = ReturnType<ModelRegistry['languageModel']>
type CallParams = Parameters<LanguageModel['doGenerate']>[0]
type StreamPart =
  Awaited<ReturnType<LanguageModel['doStream']>>['stream'] extends ReadableStream<infer Part>
    ? Part
    : never

/** Reads a streamed call to its end, handing each piece of text over; an error part rejects. */
async function readText(
  stream: ReadableStream<StreamPart>,
  onText: (text: string) => void,
): Promise<string> {
  const reader = stream.getReader()
  let text = ''
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const part = next.value
      if (part.type === 'error') throw part.error
      // Paid for and over: what follows (an abort its own charge caused) is not its business.
      if (part.type === 'finish') {
        await reader.cancel().catch(() => {})
        break
      }
      if (part.type === 'text-delta' && part.delta.length > 0) {
        text += part.delta
        onText(part.delta)
      }
    }
  } catch (error) {
    // Cancelled, so the budget middleware settles or releases the call's reservation.
    await reader.cancel(error).catch(() => {})
    throw error
  }
  return text
}

/**
 * Calls a model once, directly (no agent, no tools), through core's budget middleware: the
 * same charging path as every agent's calls. The answer is bounded (`maxOutputTokens`, at
 * most what the budget has left), that bound is reserved before the call and the real usage
 * settled after; a call that does not fit while sibling calls hold reservations waits for
 * them to settle, so concurrent fanout branches share a budget instead of starving. With
 * `onText` the call is streamed and its text handed over as it comes.
 *
 * @example
 * const { text } = await callModel({ models, model: 'offline:default', prompt: 'Hi', budget, wallet: 'coordinator' })
 */
export async function callModel(options: CallModelOptions): Promise<CallModelResult> {
  const { budget, model: ref } = options
  // Without a signal of the caller's, the call gets the budget's from the charger, made only
  // if the model reads it: a fan-out's branches each have a budget, and most models never do.
  const signal = options.signal ? AbortSignal.any([budget.signal, options.signal]) : undefined
  budget.throwIfAborted()
  signal?.throwIfAborted()
  let charged: { inputTokens: number; outputTokens: number } | undefined
  const charger = new BudgetCharger({
    budget,
    model: ref,
    prices: options.prices ?? options.models.prices ?? defaultPriceTable,
    wallet: options.wallet,
    onCharge: (charge) => {
      charged = charge
    },
    signalFromBudget: true,
  })
  const user: CallParams['prompt'][number] = {
    role: 'user',
    content: [{ type: 'text', text: options.prompt }],
  }
  const params: CallParams = {
    prompt: options.system ? [{ role: 'system', content: options.system }, user] : [user],
  }
  if (signal) params.abortSignal = signal
  if (options.temperature !== undefined) params.temperature = options.temperature
  try {
    const languageModel = options.models.languageModel(ref)
    let text: string
    if (options.onText) {
      const { stream } = await charger.stream(params, languageModel)
      text = await readText(stream, options.onText)
    } else {
      const result = await charger.generate(params, languageModel)
      text = textOf(result.content)
    }
    return {
      text,
      inputTokens: charged?.inputTokens ?? 0,
      outputTokens: charged?.outputTokens ?? 0,
    }
  } catch (error) {
    if (signal?.aborted) throw signal.reason
    if (budget.aborted) throw budget.signal.reason
    if (BatonError.isInstance(error)) throw error
    throw new ModelCallError({
      model: ref,
      reason: error instanceof Error ? error.message : String(error),
      cause: error,
    })
  }
}

type Content = Awaited<ReturnType<LanguageModel['doGenerate']>>['content']

// The answer's text parts, joined; one part (the usual answer) as it is.
function textOf(content: Content): string {
  let text = ''
  for (const part of content) if (part.type === 'text') text += part.text
  return text
}
