import { type EventStreamStatus, openEventStream } from '@baton/surface'
import { useEffect, useState } from 'react'
import { endpoint } from '../api/client'

/** One event of a run as the server streams it (`step-start`, `step-finish`, `run-finish`, …). */
export type RunEventView = { type: string; sequence?: number; [key: string]: unknown }

/**
 * Follows `GET /api/v1/runs/:id/events` while the run is shown: every event from the first,
 * retried with `Last-Event-ID` when the stream drops.
 *
 * @example
 * const { events, status } = useRunEvents(runId)
 */
export function useRunEvents(runId: string | undefined): {
  events: RunEventView[]
  status: EventStreamStatus | undefined
} {
  const [events, setEvents] = useState<RunEventView[]>([])
  const [status, setStatus] = useState<EventStreamStatus>()
  useEffect(() => {
    setEvents([])
    if (!runId) return
    const stream = openEventStream({
      endpoint,
      path: `api/v1/runs/${encodeURIComponent(runId)}/events`,
      endsWhenServerCloses: true,
      onStatus: setStatus,
      onEvent: (message) => {
        try {
          const event = JSON.parse(message.data) as RunEventView
          if (event && typeof event.type === 'string') setEvents((all) => [...all, event])
        } catch {
          // A line that is not JSON (a keep-alive) is not an event.
        }
      },
    })
    return () => stream.close()
  }, [runId])
  return { events, status }
}
