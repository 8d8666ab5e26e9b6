/** What a strategy adds to the run result besides its output. */
export type StrategyOutcome = { consensusReached?: boolean; approved?: boolean }
