import type { LanguageModelV3CallOptions } from '@ai-sdk/provider'
import { OfflineModelError } from '../model-errors'
import { parseDirectives, stripDirectives } from './parse-directives'
import { readIdentity, readPrompt } from './read-prompt'
import { schemaExample } from './schema-example'

export type OfflineReply = (
  | { kind: 'text'; text: string; truncated: boolean }
  | { kind: 'tool-call'; toolCallId: string; toolName: string; input: string }
) & {
  inputTokens: number
  outputTokens: number
  /** How long a streamed reply waits before each chunk (`[[chunk-delay:MS]]`). */
  chunkDelayMs?: number
}

/**
 * Decides what the offline model says for one call: the next tool directive not yet answered
 * by a tool result, else the final text (answer, JSON, a schema-valid object, or the echo).
 *
 * @example
 * const reply = await offlineReply({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })
 * reply.kind // 'text'
 */
export async function offlineReply(options: LanguageModelV3CallOptions): Promise<OfflineReply> {
  options.abortSignal?.throwIfAborted()
  const view = readPrompt(options.prompt)
  const directives = parseDirectives([view.system, ...view.userTexts])
  if (directives.sleepMs) await sleep(directives.sleepMs, options.abortSignal)
  if (directives.fail !== undefined) {
    throw new OfflineModelError(directives.fail || 'Offline model failed.', { directive: 'fail' })
  }
  const inputTokens = Math.ceil(view.characters / 4)
  const paced = directives.chunkDelayMs ? { chunkDelayMs: directives.chunkDelayMs } : {}
  const next = directives.tools[view.toolResults.length]
  if (next && options.toolChoice?.type !== 'none') {
    const input = JSON.stringify(next.input)
    return {
      kind: 'tool-call',
      toolCallId: `offline-call-${view.toolResults.length + 1}`,
      toolName: next.toolName,
      input,
      inputTokens,
      outputTokens: Math.ceil((next.toolName.length + input.length) / 4),
      ...paced,
    }
  }
  const identity = readIdentity(view.system)
  const task = restate(view.userTexts.at(-1) ?? '')
  const results = view.toolResults.map((result) => `${result.toolName} → ${result.output}`)
  const echo = [
    `${identity.name} (${identity.type}): Here is my response to "${task}".`,
    results.length ? `Tool results: ${results.join('; ')}.` : '',
    identity.persona ? `Persona: ${restate(identity.persona, 80)}` : '',
  ]
    .filter(Boolean)
    .join(' ')
  let text: string
  if (options.responseFormat?.type === 'json') {
    if (directives.json !== undefined) text = JSON.stringify(directives.json)
    else if (directives.answer !== undefined && isJson(directives.answer)) text = directives.answer
    else if (options.responseFormat.schema) {
      text = JSON.stringify(schemaExample(options.responseFormat.schema, task))
    } else text = JSON.stringify({ answer: echo })
  } else if (directives.answer !== undefined) text = directives.answer
  else if (directives.json !== undefined) text = JSON.stringify(directives.json)
  else text = echo
  // A budget-capped call gets a shorter answer, as a real model would.
  const limit = options.maxOutputTokens
  const truncated = limit !== undefined && text.length > limit * 4
  if (truncated) text = text.slice(0, Math.max(0, limit * 4))
  const outputTokens = Math.ceil(text.length / 4)
  return { kind: 'text', text, truncated, inputTokens, outputTokens, ...paced }
}

function restate(text: string, max = 200): string {
  const flat = stripDirectives(text).replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
