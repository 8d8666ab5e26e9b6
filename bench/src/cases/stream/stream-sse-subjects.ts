import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { readSse, type SseEvent } from '@baton/testing/sse'
import { streamText } from 'ai'
import { createInstantLanguageModel } from '../../instant'
import { startBatonServer } from '../../servers/start-baton-server'
import type { Figure, Subjects } from '../types'
import { streamChunks, streamCount } from './stream-case'
import { medianOf } from './stream-subjects'

/** Reads `response`'s server-sent events, handing each to `onEvent` until it says stop or the stream ends. */
async function readEvents(
  response: Response,
  onEvent: (event: SseEvent) => boolean | undefined,
): Promise<void> {
  try {
    for await (const event of readSse(response.body!)) if (onEvent(event)) return
  } finally {
    await response.body?.cancel().catch(() => {})
  }
}

/**
 * An instant model whose stream sends `chunks` deltas of 8 characters at once, after a pause
 * that lets the reader of the run's events connect first (the pause is not measured).
 */
function longStreamModel(chunks: number): LanguageModelV3 {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: chunks * 2, text: chunks * 2, reasoning: 0 },
  }
  return {
    ...createInstantLanguageModel({ modelId: 'stream' }),
    async doStream() {
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          async start(controller) {
            await new Promise((resolve) => setTimeout(resolve, 300))
            controller.enqueue({ type: 'stream-start', warnings: [] })
            controller.enqueue({ type: 'text-start', id: 't' })
            for (let index = 0; index < chunks; index += 1) {
              controller.enqueue({ type: 'text-delta', id: 't', delta: 'abcdefg ' })
            }
            controller.enqueue({ type: 'text-end', id: 't' })
            controller.enqueue({
              type: 'finish',
              finishReason: { unified: 'stop', raw: 'stop' },
              usage,
            })
            controller.close()
          },
        }),
      }
    },
  }
}

const json = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then((response) => response.json() as Promise<Record<string, unknown>>)

export const streamSseSubjects: Subjects = {
  // streamText alone, in process, for the row's comparison (ms).
  bare: (size) => {
    const model = createInstantLanguageModel()
    return medianOf(
      streamCount(size),
      async () => {
        const started = performance.now()
        let first: number | undefined
        for await (const _text of streamText({ model, prompt: 'Hi' }).textStream) {
          first ??= performance.now()
        }
        return (first ?? performance.now()) - started
      },
      1,
    )
  },

  async baton(size) {
    const chunks = streamChunks(size)
    const server = await startBatonServer({ models: { 'offline:stream': longStreamModel(chunks) } })
    try {
      // A hosted agent's bus reply: the message stream is open first, so nothing is missed.
      const stream = await fetch(`${server.url}/api/v1/messages/stream`)
      let waiting: ((at: number) => void) | undefined
      const reading = readEvents(stream, (event) => {
        if (event.event === 'delta') waiting?.(performance.now())
        return undefined
      })
      const first = await medianOf(
        streamCount(size),
        async () => {
          const arrived = new Promise<number>((resolve) => {
            waiting = resolve
          })
          const started = performance.now()
          await json(`${server.url}/api/v1/messages`, {
            from: { agentId: 'bench' },
            to: { agentId: 'analyst' },
            content: 'Hi',
          })
          return (await arrived) - started
        },
        1,
      )
      void reading.catch(() => {})

      // A run's SSE: one models_call streaming `chunks` deltas, read from the start.
      const { id } = (await json(`${server.url}/api/v1/runs`, {
        plan: {
          steps: [{ op: 'models_call', saveAs: 'a', model: 'offline:stream', prompt: 'Hi' }],
        },
      })) as { id: string }
      const events = await fetch(`${server.url}/api/v1/runs/${id}/events`)
      let deltas = 0
      let characters = 0
      let firstAt: number | undefined
      let lastAt = 0
      await readEvents(events, (event) => {
        if (event.event === 'step-delta') {
          deltas += 1
          characters += (JSON.parse(event.data) as { text: string }).text.length
          firstAt ??= performance.now()
          lastAt = performance.now()
        }
        return event.event === 'run-finish'
      })
      await stream.body?.cancel().catch(() => {})
      const seconds = Math.max(lastAt - (firstAt ?? lastAt), 0.001) / 1000
      const figure: Figure = {
        value: first.value,
        details: {
          ...first.details,
          busFirstDeltaMs: first.value,
          runSseDeltas: deltas,
          runSseCharacters: characters,
          runSseExpectedCharacters: chunks * 8,
          runSseDeltasPerSecond: Math.round(deltas / seconds),
          runSseCharactersPerSecond: Math.round(characters / seconds),
        },
      }
      return figure
    } finally {
      await server.close()
    }
  },
}
