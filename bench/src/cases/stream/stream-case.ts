import type { BenchCase, Size } from '../types'

/** How many streamed runs are timed for their first delta. */
export const streamCount = (size: Size): number => (size === 'full' ? 500 : 20)

/** How many chunks the long stream through a run's SSE sends (8 characters each). */
export const streamChunks = (size: Size): number => (size === 'full' ? 20_000 : 2_000)

/**
 * Time to the first text delta of a streamed agent run, in process: Baton's `runAgent` with
 * `onDelta` beside the AI SDK's `streamText` alone, on the instant model.
 */
export const streamFirstDeltaCase: BenchCase = {
  name: 'stream-first-delta',
  work: () => 'streamed run, time to first delta, in process (median µs)',
  unit: 'µs',
  target: {
    text: '≤ streamText + 1000',
    met: (baton, others) => others.bare !== undefined && baton.value <= others.bare.value + 1000,
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./stream-subjects')).streamFirstDeltaSubjects,
}

/**
 * The same through the server, which runs in a process of its own: from `POST /api/v1/messages`
 * (a message to a hosted agent, on the instant model) to the first `delta` of its reply on an
 * already-open `GET /api/v1/messages/stream`. In the details: the POST's own time to its 202
 * (`busAcceptedMs`); a run's creation (`runCreatedMs`, `POST /api/v1/runs` to its 202) and the
 * time from that POST to the first `step-delta` on the run's SSE stream opened once its id is
 * known (`runFirstDeltaMs`); the `step-delta` events and characters per second a long stream
 * makes through a run's SSE.
 */
export const streamSseCase: BenchCase = {
  name: 'stream-sse',
  work: () =>
    'streamed reply through the server (own process), POST /messages to first delta on an open SSE stream (median ms)',
  unit: 'ms',
  target: {
    text: '≤ streamText + 5',
    met: (baton, others) => others.bare !== undefined && baton.value <= others.bare.value + 5,
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./stream-sse-subjects')).streamSseSubjects,
}
