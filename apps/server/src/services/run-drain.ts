import { HttpError } from '../http/http-errors'
import { type RunContext, ShutdownStop } from './run-context'

/** See `RunService.drain`. */
export async function drainRuns(context: RunContext, timeoutMs: number): Promise<void> {
  context.draining = true
  for (const active of context.active.values()) active.draining = true
  // Nothing new starts here from now on: without this, every job that waited would start
  // (and be stopped again) as one in flight made room, and the bound would not hold.
  await context.options.queue.pause()
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs)
  })
  const outcome = await Promise.race([settled(context), timeout])
  clearTimeout(timer)
  if (outcome === 'timeout') {
    for (const active of context.active.values()) active.controller.abort(new ShutdownStop())
    await settled(context)
  }
}

/** Resolves once every job given to this process has settled (those given meanwhile too). */
async function settled(context: RunContext): Promise<void> {
  while (context.executing.size > 0) await Promise.allSettled([...context.executing])
}

/** Refuses a new request (503) once the service is draining. */
export function assertOpen(context: RunContext): void {
  if (context.draining) {
    throw new HttpError(503, 'SHUTTING_DOWN', 'The server is shutting down.')
  }
}
