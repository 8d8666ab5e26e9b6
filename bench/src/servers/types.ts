/** A server a load test runs against, listening on 127.0.0.1. */
export type StartedServer = {
  url: string
  /** The paths the load tests use, by what they are. */
  paths: Record<string, string>
  /** How the agent behind an A2A path answers (the instant model, or what stands in for it). */
  model?: string
  /** The folder of its data, removed by `close()`. */
  dataDir?: string
  close(): Promise<unknown>
  /**
   * Waits until the work the load left behind (queued runs) is done, and says how much there
   * was and how many of the counted queries were its own look-ups (`ownQueries`).
   */
  settle?(counter: {
    read(): { queries: number }
  }): Promise<{ ownQueries: number; runs?: number; settleMs?: number }>
  /** Registers `count` more agents (straight into its store), answering how many it holds. */
  seedAgents?(count: number): Promise<number>
}
