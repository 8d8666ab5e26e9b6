import type { SwarmRunEvent } from '../swarm-runner/types'

/** One swarm run as the surface sees it. */
export type SwarmRunState = {
  runId: string
  swarmId: string
  task: string
  status: 'running' | 'done' | 'failed' | 'cancelled'
  /** The events received so far (the first is kept when the oldest are dropped). */
  events: SwarmRunEvent[]
  /** The round in progress or last finished (0 before the first). */
  round: number
  output?: string
  error?: { code: string; message: string }
  startedAt: number
  finishedAt?: number
}

/**
 * The run after `event`: a new object, so React sees the change. `maxEvents` bounds the
 * events kept; the first one (`swarm-start`) always stays.
 *
 * @example
 * run = applySwarmEvent(run, event, 500)
 */
export function applySwarmEvent(
  run: SwarmRunState,
  event: SwarmRunEvent,
  maxEvents: number,
): SwarmRunState {
  const events = [...run.events, event]
  if (events.length > maxEvents) events.splice(1, events.length - maxEvents)
  const next: SwarmRunState = { ...run, events }
  switch (event.type) {
    case 'round-start':
    case 'round-finish':
      next.round = event.round
      break
    case 'swarm-finish':
      next.status = event.result.status
      next.output = event.result.output
      if (event.result.error) next.error = event.result.error
      next.finishedAt = Date.now()
      break
    case 'swarm-error':
      next.status = event.error.code === 'CANCELLED' ? 'cancelled' : 'failed'
      next.error = event.error
      next.finishedAt = Date.now()
      break
    default:
      break
  }
  return next
}
