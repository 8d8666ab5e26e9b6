import type { Span } from '@opentelemetry/api'
import type { SwarmEvent } from '../swarm/types'

/**
 * Puts a swarm's rounds on its workflow span as events (`baton.swarm.round.start`,
 * `baton.swarm.round.finish` with the consensus when the strategy votes); the members' calls
 * are `invoke_agent` spans of their own.
 *
 * @example
 * const emit = (event) => { recordSwarmEvent(span, event); options.onEvent?.(event) }
 */
export function recordSwarmEvent(span: Span, event: SwarmEvent): void {
  if (event.type === 'round-start') {
    span.addEvent('baton.swarm.round.start', { 'baton.swarm.round': event.round })
  } else if (event.type === 'round-finish') {
    span.addEvent('baton.swarm.round.finish', {
      'baton.swarm.round': event.round,
      ...(event.consensusReached === undefined
        ? {}
        : { 'baton.swarm.consensus_reached': event.consensusReached }),
    })
  }
}
