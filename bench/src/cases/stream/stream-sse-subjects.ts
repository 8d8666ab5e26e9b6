import { readSse, type SseEvent } from '@baton/testing/sse'
import { streamText } from 'ai'
import { createInstantLanguageModel } from '../../instant'
import { startServerProcess } from '../../measure'
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
    // The server in a process of its own, as it is deployed: the reader here never waits for
    // the server's work after the first delta (its memory and ledger writes) to get it.
    const server = await startServerProcess('baton-stream', {
      env: { BATON_BENCH_STREAM_CHUNKS: String(chunks) },
    })
    try {
      // A hosted agent's bus reply: the message stream is open first, so nothing is missed.
      const stream = await fetch(`${server.url}/api/v1/messages/stream`)
      let waiting: ((at: number) => void) | undefined
      const reading = readEvents(stream, (event) => {
        if (event.event === 'delta') waiting?.(performance.now())
        return undefined
      })
      const accepted: number[] = []
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
          accepted.push(performance.now() - started)
          return (await arrived) - started
        },
        1,
      )
      void reading.catch(() => {})

      // A run: its creation (POST /api/v1/runs to the 202), then from the same POST to the
      // first step-delta on the run's SSE stream, opened as soon as the 202 gives its id (a
      // delta written before the reader came is handed to it first: the step's text so far).
      const created: number[] = []
      const runFirst = await medianOf(
        streamCount(size),
        async () => {
          const started = performance.now()
          const { id } = (await json(`${server.url}/api/v1/runs`, {
            plan: {
              steps: [{ op: 'models_call', saveAs: 'a', model: 'offline:default', prompt: 'Hi' }],
            },
          })) as { id: string }
          created.push(performance.now() - started)
          let at = performance.now()
          await readEvents(await fetch(`${server.url}/api/v1/runs/${id}/events`), (event) => {
            if (event.event !== 'step-delta') return undefined
            at = performance.now()
            return true
          })
          return at - started
        },
        1,
      )

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
          busAcceptedMs: medianOfTimes(accepted),
          runCreatedMs: medianOfTimes(created),
          runFirstDeltaMs: runFirst.value,
          runFirstDeltaP90Ms: runFirst.details?.p90 ?? 0,
          runSseDeltas: deltas,
          runSseCharacters: characters,
          runSseExpectedCharacters: chunks * 8,
          runSseDeltasPerSecond: Math.round(deltas / seconds),
          runSseCharactersPerSecond: Math.round(characters / seconds),
        },
      }
      return figure
    } finally {
      await server.stop()
    }
  },
}

/** The median of some timings, ms, to two decimals. */
function medianOfTimes(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b)
  return Math.round((sorted[Math.floor(sorted.length / 2)] ?? 0) * 100) / 100
}
