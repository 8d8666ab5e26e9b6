import type { SwarmRunEvent } from '@baton/surface'

export type RoundView = {
  round: number
  messages: Extract<SwarmRunEvent, { type: 'swarm-message' }>[]
  /** Weight per proposal index, from the run's own tally (when it sent one). */
  tally?: { weights: number[]; totalWeight: number; leading: number; abstained?: number }
  consensusReached?: boolean
}

type FinishedRound = { round: number; tally?: RoundView['tally']; consensusReached?: boolean }

/**
 * A swarm run's events grouped by round, each with its messages (proposals, votes, work…)
 * and, once the run finished, the tally the run itself computed.
 *
 * @example
 * const rounds = groupRounds(run.events)
 */
export function groupRounds(events: readonly SwarmRunEvent[]): RoundView[] {
  const rounds = new Map<number, RoundView>()
  const round = (number: number) => {
    const existing = rounds.get(number)
    if (existing) return existing
    const created: RoundView = { round: number, messages: [] }
    rounds.set(number, created)
    return created
  }
  for (const event of events) {
    if (event.type === 'round-start') round(event.round)
    if (event.type === 'swarm-message') round(event.round).messages.push(event)
    if (event.type === 'round-finish' && event.consensusReached !== undefined)
      round(event.round).consensusReached = event.consensusReached
    if (event.type === 'swarm-finish') {
      const finished = (event.result as { rounds?: FinishedRound[] }).rounds ?? []
      for (const summary of finished) {
        const view = round(summary.round)
        if (summary.tally) view.tally = summary.tally
        if (summary.consensusReached !== undefined) view.consensusReached = summary.consensusReached
      }
    }
  }
  return [...rounds.values()].sort((left, right) => left.round - right.round)
}
