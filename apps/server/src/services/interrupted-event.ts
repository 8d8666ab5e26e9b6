import type { RunEvent } from '@baton/mal'

/**
 * The event stored in place of mal's `run-finish` when the server stopped the run at shutdown:
 * the run is not over (it resumes from its last finished step), so its events say interrupted.
 *
 * @example
 * events.push(interruptedEvent(finish, false)) // { type: 'run-interrupted', status: 'interrupted', … }
 */
export function interruptedEvent(
  finish: Extract<RunEvent, { type: 'run-finish' }>,
  handedOver: boolean,
): Record<string, unknown> {
  const { status: _status, output: _output, error: _error, reason: _reason, ...rest } = finish
  return {
    ...rest,
    type: 'run-interrupted',
    status: handedOver ? 'queued' : 'interrupted',
    reason: handedOver
      ? 'the server stopped; another process continues the run from its last finished step'
      : 'the server stopped; resume continues the run from its last finished step',
  }
}
