import { HttpError } from '../http/http-errors'
import { drainWithin } from './drain-within'
import { type RunContext, ShutdownStop } from './run-context'

/** See `RunService.drain`. */
export async function drainRuns(context: RunContext, timeoutMs: number): Promise<void> {
  context.draining = true
  for (const active of context.active.values()) active.draining = true
  // Nothing new starts here from now on: without this, every job that waited would start
  // (and be stopped again) as one in flight made room, and the bound would not hold.
  await context.options.queue.pause()
  await drainWithin(context.executing, timeoutMs, () => {
    for (const active of context.active.values()) active.controller.abort(new ShutdownStop())
  })
}

/** Refuses a new request (503) once the service is draining. */
export function assertOpen(context: RunContext): void {
  if (context.draining) {
    throw new HttpError(503, 'SHUTTING_DOWN', 'The server is shutting down.')
  }
}
