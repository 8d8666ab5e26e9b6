import { type EventStreamStatus, openEventStream } from '@baton/surface'
import { useEffect, useState } from 'react'
import { endpoint } from '../api/client'

/** One event of a run as the server streams it (`step-start`, `step-finish`, `run-finish`, …). */
export type RunEventView = { type: string; sequence?: number; [key: string]: unknown }

/** The text a step's model has streamed so far (live `step-delta` events), by step path. */
export type StepTextView = { path: string; op: string; wallet: string; text: string; done: boolean }

/**
 * Follows `GET /api/v1/runs/:id/events` while the run is shown: every stored event from the
 * first, retried with `Last-Event-ID` when the stream drops, and apart from them the text each
 * step's model streams (live only: never in `events`, so a piece of text rereads nothing).
 *
 * @example
 * const { events, texts, status } = useRunEvents(runId)
 */
export function useRunEvents(runId: string | undefined): {
  events: RunEventView[]
  texts: StepTextView[]
  status: EventStreamStatus | undefined
} {
  const [events, setEvents] = useState<RunEventView[]>([])
  const [texts, setTexts] = useState<StepTextView[]>([])
  const [status, setStatus] = useState<EventStreamStatus>()
  useEffect(() => {
    setEvents([])
    setTexts([])
    if (!runId) return
    const stream = openEventStream({
      endpoint,
      path: `api/v1/runs/${encodeURIComponent(runId)}/events`,
      endsWhenServerCloses: true,
      onStatus: setStatus,
      onEvent: (message) => {
        try {
          const event = JSON.parse(message.data) as RunEventView
          if (!event || typeof event.type !== 'string') return
          if (event.type === 'step-delta') return setTexts((all) => withDelta(all, event))
          if (event.type === 'step-finish' || event.type === 'step-error') {
            setTexts((all) =>
              all.some((text) => text.path === event.path && !text.done)
                ? all.map((text) => (text.path === event.path ? { ...text, done: true } : text))
                : all,
            )
          }
          setEvents((all) => [...all, event])
        } catch {
          // A line that is not JSON (a keep-alive) is not an event.
        }
      },
    })
    return () => stream.close()
  }, [runId])
  return { events, texts, status }
}

function withDelta(all: StepTextView[], event: RunEventView): StepTextView[] {
  const path = String(event.path)
  const piece = String(event.text ?? '')
  const index = all.findIndex((text) => text.path === path && !text.done)
  if (index === -1) {
    // A step run again (a loop's next iteration) starts a text of its own.
    const fresh = {
      path,
      op: String(event.op),
      wallet: String(event.wallet),
      text: piece,
      done: false,
    }
    return [...all.filter((text) => text.path !== path), fresh]
  }
  return all.map((text, at) => (at === index ? { ...text, text: text.text + piece } : text))
}
