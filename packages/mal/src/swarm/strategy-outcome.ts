import type { SwarmStrategy } from '@baton/core'

/** What a strategy adds to the run result besides its output. */
export type StrategyOutcome = {
  consensusReached?: boolean
  approved?: boolean
  /** Competitive runs: whose answer won, and why (the judge's reasons). */
  verdict?: { winner: string; reasons: string; judge?: string }
  /** Collaborative runs: who ended the run (a leader or `canTerminate` member), if anyone did. */
  terminatedBy?: string
  /** Adaptive runs: the strategy the leader chose, and why. */
  chosen?: { strategy: SwarmStrategy; reason: string; by: string }
}
