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
  /** Why it ended `failed` or `cancelled`; always set for those two. */
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
      // A `swarm-error` before it may have said why; a runner that says nothing still gets
      // a reason, so a failed run never reads as one without a cause.
      next.error = event.result.error ?? run.error ?? unexplained(event.result.status)
      if (next.error === undefined) delete next.error
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

function unexplained(
  status: SwarmRunState['status'],
): { code: string; message: string } | undefined {
  if (status === 'failed') {
    return { code: 'SWARM_RUN_FAILED', message: 'The run failed; its runner gave no reason.' }
  }
  if (status === 'cancelled') {
    return { code: 'CANCELLED', message: 'The run was cancelled; its runner gave no reason.' }
  }
  return undefined
}
