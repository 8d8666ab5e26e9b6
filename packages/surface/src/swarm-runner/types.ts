/** How a finished swarm run ended (the runner's full result may carry more fields). */
export type SwarmRunOutcome = {
  status: 'done' | 'failed' | 'cancelled'
  /** The answer, or the best one reached before the run stopped ('' if none). */
  output: string
  usage?: { calls: number; tokens: number; costUsd: number }
  error?: { code: string; message: string }
}

/** What a swarm run reports as it goes; every event names its `runId`. */
export type SwarmRunEvent =
  | { type: 'swarm-start'; runId: string; swarmId: string; strategy?: string; task: string }
  | { type: 'round-start'; runId: string; round: number }
  | {
      type: 'swarm-message'
      runId: string
      round: number
      kind: string
      agentId: string
      content: string
      weight?: number
    }
  | { type: 'round-finish'; runId: string; round: number; consensusReached?: boolean }
  | {
      /** A member's text as its model writes it (live only; its `swarm-message` has it whole). */
      type: 'step-delta'
      runId: string
      round: number
      /** The call: `r1/lead`. */
      path: string
      agentId: string
      wallet?: string
      kind?: string
      text: string
    }
  | { type: 'swarm-finish'; runId: string; result: SwarmRunOutcome }
  | { type: 'swarm-error'; runId: string; error: { code: string; message: string } }

/**
 * Starts swarm runs somewhere (in this process, or on a server) and streams their events.
 * `createInProcessSwarmRunner` from `@baton/mal` is one; `createHttpSwarmRunner` is another.
 */
export interface SwarmRunner {
  /** Starts a run and resolves with its id; rejects when the run could not start. */
  start(swarmId: string, task: string): Promise<string>
  /**
   * Delivers the run's events, replaying those already emitted first (so a subscriber that
   * attaches right after `start` misses nothing); returns a function that unsubscribes.
   */
  subscribe(runId: string, onEvent: (event: SwarmRunEvent) => void): () => void
  /** Stops a run in progress; true (or a promise of true) if there was one to stop. */
  cancel?(runId: string): boolean | undefined | Promise<boolean | undefined>
}
