import { type EventStreamStatus, openEventStream } from '@baton/surface'
import { useEffect, useState } from 'react'
import { endpoint, serverApi } from '../api/client'
import { isFinalRunStatus, waitsForAPerson } from './run-statuses'

/** One event of a run as the server streams it (`step-start`, `step-finish`, `run-finish`, …). */
export type RunEventView = { type: string; sequence?: number; [key: string]: unknown }

/** The text a step's model has streamed so far (live `step-delta` events), by step path. */
export type StepTextView = { path: string; op: string; wallet: string; text: string; done: boolean }

/** How often a run that waits for a person (paused, interrupted) is asked whether it moved. */
const waitingPollMs = 1_500

/**
 * Follows `GET /api/v1/runs/:id/events` until the run is final: the server ends the stream
 * whenever the run stops moving (paused for an answer, interrupted by a restart), so when it
 * ends the hook asks the run's status and opens the stream again from the last event id once
 * the run moves on (answered, resumed, or taken over). A resumed run writes its events past its
 * last checkpoint again, so after an interruption it reads them from the start. Drops are
 * retried with `Last-Event-ID`. Apart from the stored events, `texts` holds the text each step's
 * model streams (live `step-delta` events: never in `events`). `revision` changes whenever the run may have changed, so a
 * view reading the run's detail reads it again.
 *
 * @example
 * const { events, texts, status, revision } = useRunEvents(runId)
 */
export function useRunEvents(runId: string | undefined): {
  events: RunEventView[]
  texts: StepTextView[]
  status: EventStreamStatus | undefined
  revision: number
} {
  const [events, setEvents] = useState<RunEventView[]>([])
  const [texts, setTexts] = useState<StepTextView[]>([])
  const [status, setStatus] = useState<EventStreamStatus>()
  const [revision, setRevision] = useState(0)
  useEffect(() => {
    setEvents([])
    setTexts([])
    if (!runId) return
    let stopped = false
    let stream: { close(): void } | undefined
    let timer: ReturnType<typeof setTimeout> | undefined
    let lastEventId: string | undefined
    const changed = () => setRevision((value) => value + 1)

    // `seen`: the run's status when this stream was opened (unknown for the first one).
    const open = (fromStart: boolean, seen: string | undefined) => {
      if (fromStart) lastEventId = undefined
      let replaced = !fromStart
      stream = openEventStream({
        endpoint,
        path: `api/v1/runs/${encodeURIComponent(runId)}/events`,
        ...(lastEventId === undefined ? {} : { lastEventId }),
        endsWhenServerCloses: true,
        onStatus: (next) => {
          setStatus(next)
          if (next.state === 'closed' && !stopped) void afterEnd(seen)
          // Back after a drop (a restart): the run may have changed without an event.
          if (next.state === 'open') changed()
        },
        onEvent: (message) => {
          if (message.id !== undefined) lastEventId = message.id
          let event: RunEventView
          try {
            event = JSON.parse(message.data) as RunEventView
          } catch {
            return // A line that is not JSON (a keep-alive) is not an event.
          }
          if (!event || typeof event.type !== 'string') return
          if (event.type === 'step-delta') return setTexts((all) => withDelta(all, event))
          if (event.type === 'step-finish' || event.type === 'step-error') {
            setTexts((all) =>
              all.some((text) => text.path === event.path && !text.done)
                ? all.map((text) => (text.path === event.path ? { ...text, done: true } : text))
                : all,
            )
          }
          if (!replaced) {
            replaced = true
            setEvents([event])
          } else setEvents((all) => [...all, event])
        },
      })
    }

    // The stream ended (the run stopped moving, or the server went away): read the run's
    // status, and read the stream again whenever it is not the one the stream was opened at.
    const afterEnd = async (seen: string | undefined): Promise<void> => {
      changed()
      let current: string | undefined
      try {
        current = (await serverApi.getRun(runId)).status
      } catch {
        current = undefined // Not answering: ask again shortly.
      }
      if (stopped) return
      const unchanged = current === undefined || current === seen
      if (unchanged && (current === undefined || waitsForAPerson(current))) {
        timer = setTimeout(() => void afterEnd(seen), waitingPollMs)
        return
      }
      if (unchanged && isFinalRunStatus(current!)) return
      // An interrupted run that moves again rewrites its events past its last checkpoint.
      open(seen === 'interrupted' && !waitsForAPerson(current!), current)
    }

    open(true, undefined)
    return () => {
      stopped = true
      if (timer) clearTimeout(timer)
      stream?.close()
    }
  }, [runId])
  return { events, texts, status, revision }
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
