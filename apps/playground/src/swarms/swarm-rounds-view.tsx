import type { SwarmRunEvent } from '@baton/surface'
import { groupRounds } from './swarm-rounds'

/**
 * A swarm run's rounds: each round's proposals, votes (with weights) and work, and the leading
 * proposal's share of the weight against the consensus threshold. The Swarms view and the Runs
 * view (a swarm run opened there) both draw a swarm run with it.
 */
export function SwarmRoundsView({
  events,
  threshold,
}: {
  events: readonly SwarmRunEvent[]
  threshold: number
}) {
  const rounds = groupRounds(events)
  return (
    <>
      {rounds.map((round) => {
        const tally = round.tally
        const leadingShare =
          tally && tally.totalWeight > 0
            ? (tally.weights[tally.leading] ?? 0) / tally.totalWeight
            : undefined
        return (
          <section key={round.round} className="panel" aria-label={`Round ${round.round}`}>
            <h3 style={{ margin: '0 0 0.4rem', fontSize: '1rem' }}>
              Round {round.round}{' '}
              {round.consensusReached === true ? (
                <span className="pill ok">consensus</span>
              ) : round.consensusReached === false ? (
                <span className="pill warn">no consensus</span>
              ) : null}
            </h3>
            <table>
              <thead>
                <tr>
                  <th>Kind</th>
                  <th>Agent</th>
                  <th className="number">Weight</th>
                  <th>Said</th>
                </tr>
              </thead>
              <tbody>
                {round.messages.map((message, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a round's messages only grow, in order
                  <tr key={`${message.agentId}-${index}`} data-kind={message.kind}>
                    <td>
                      <span className="pill">{message.kind}</span>
                    </td>
                    <td>{message.agentId}</td>
                    <td className="number">{message.weight ?? ''}</td>
                    <td>{message.content.slice(0, 240)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {leadingShare !== undefined ? (
              <div style={{ marginTop: '0.5rem' }}>
                <div className="muted" style={{ fontSize: '0.85rem' }}>
                  Weight per proposal:{' '}
                  {tally!.weights.map((weight, index) => `#${index} ${weight}`).join(', ')}
                  {tally!.abstained ? `, abstained ${tally!.abstained}` : ''} (of{' '}
                  {tally!.totalWeight}). Proposal {tally!.leading} leads with{' '}
                  {(leadingShare * 100).toFixed(0)}% of the weight; consensus needs{' '}
                  {(threshold * 100).toFixed(0)}%.
                </div>
                {/* biome-ignore lint/a11y/useSemanticElements: <meter> cannot draw the threshold line */}
                <div
                  className="consensus"
                  role="meter"
                  aria-label="Leading proposal's share of the weight"
                  aria-valuemin={0}
                  aria-valuemax={100}
                  aria-valuenow={Math.round(leadingShare * 100)}
                >
                  <div className="bar" style={{ width: `${leadingShare * 100}%` }} />
                  <div
                    className="threshold"
                    style={{ left: `${threshold * 100}%` }}
                    title="threshold"
                  />
                </div>
              </div>
            ) : null}
          </section>
        )
      })}
    </>
  )
}
