import type { RunEventStream } from './run-event-channel'
import { RunEventChannel } from './run-event-channel'
import type { RunResult } from './run-options'

/**
 * What `runPlan` and `resumeRun` return: a promise of the final result that also carries the
 * run's id and its events as a stream, for piping a run to SSE as it happens.
 */
export type RunHandle = Promise<RunResult> & {
  readonly runId: string
  /** Every event of the run, in order, ending when the run ends. Read it right away: events
   * emitted before it is first asked for are not in it. */
  readonly events: RunEventStream
}

/**
 * Starts a run on the next microtask (so `events` asked for right after the call sees every
 * event) and wraps it in a `RunHandle`.
 *
 * @example
 * return startRun(runId, (channel) => executeRun({ plan, inputs, options, channel }))
 */
export function startRun(
  runId: string,
  run: (channel: RunEventChannel) => Promise<RunResult>,
  capacity?: number,
): RunHandle {
  const channel = new RunEventChannel(capacity)
  const promise = Promise.resolve()
    .then(() => run(channel))
    .then(
      (result) => {
        channel.close()
        return result
      },
      (error: unknown) => {
        channel.fail(error)
        throw error
      },
    )
  // A caller that only reads the stream learns of a rejection there; it must not also crash
  // the process as an unhandled rejection.
  promise.catch(() => undefined)
  Object.defineProperties(promise, {
    runId: { value: runId, enumerable: true },
    events: { get: () => channel.stream(), enumerable: true },
  })
  return promise as RunHandle
}
