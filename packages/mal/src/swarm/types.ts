import type {
  Agent,
  Budget,
  ModelRegistry,
  SwarmMember,
  SwarmStrategy,
  ToolRegistry,
} from '@baton/core'
import type { ConclaveSpace, ConclaveStore } from '../conclave/conclave-types'
import type { SwarmJournal } from './swarm-journal'

/** What a message of a swarm run is. */
export type SwarmMessageKind =
  | 'plan'
  | 'assignment'
  | 'work'
  | 'proposal'
  | 'vote'
  | 'critique'
  | 'approval'
  | 'result'

/** One thing a member said (or was assigned) during a round. */
export type SwarmMessage = {
  kind: SwarmMessageKind
  agentId: string
  content: string
  /** The member's voting weight (on proposals and votes). */
  weight?: number
}

/** Voting weight per proposal index, plus the weight that abstained. */
export type SwarmTally = {
  /** `weights[i]` is the weight that voted for proposal `i`. */
  weights: number[]
  abstained: number
  totalWeight: number
  /** Index of the proposal with the most weight (ties go to the earliest). */
  leading: number
}

export type SwarmRound = {
  round: number
  messages: SwarmMessage[]
  tally?: SwarmTally
  consensusReached?: boolean
}

export type SwarmUsage = { calls: number; tokens: number; costUsd: number }

export type SwarmRunStatus = 'done' | 'failed' | 'cancelled'

export type SwarmRunResult = {
  runId: string
  swarmId: string
  strategy: SwarmStrategy
  status: SwarmRunStatus
  /** The answer (or the best one reached before the run stopped; '' if none). */
  output: string
  /** Democratic runs: whether a proposal reached the consensus threshold. */
  consensusReached?: boolean
  /** Hierarchical runs: whether the critic approved the result. */
  approved?: boolean
  /** Competitive runs: whose answer won, and the judge's reasons. */
  verdict?: { winner: string; reasons: string; judge?: string }
  /** Collaborative runs: the member that ended the run early. */
  terminatedBy?: string
  /** Adaptive runs: the strategy chosen for this run, why, and by whom. */
  chosen?: { strategy: SwarmStrategy; reason: string; by: string }
  rounds: SwarmRound[]
  /** Every member call's usage, calls answered from the journal included (as they were charged). */
  usage: SwarmUsage
  /** Usage per member agent id; the values sum to `usage`. */
  usageByAgent: Record<string, SwarmUsage>
  /**
   * With a journal: how many member calls it answered (`replayed`, charged nothing this time)
   * and what they had cost (`replayedUsage`, part of `usage`), and the keys of recorded calls
   * whose prompt had changed, which ran again (`diverged`).
   */
  journal?: { replayed: number; replayedUsage: SwarmUsage; diverged: string[] }
  error?: { code: string; message: string }
}

export type SwarmEvent =
  | { type: 'swarm-start'; runId: string; swarmId: string; strategy: SwarmStrategy; task: string }
  | { type: 'round-start'; runId: string; round: number }
  | ({
      type: 'swarm-message'
      runId: string
      round: number
      /** The message reports a member's answer taken from the journal (no call was made). */
      replayed?: true
      /** The message reports a member's answer asked again: the journal's was to another prompt. */
      diverged?: true
    } & SwarmMessage)
  | { type: 'round-finish'; runId: string; round: number; consensusReached?: boolean }
  | {
      /**
       * Text a member's model streamed, coalesced like a plan step's (at most one event per
       * ~50 ms or a few hundred characters). Live only: a server never stores it, and the
       * in-process runner keeps none for late subscribers; the whole answer is in the
       * `swarm-message` that follows. `path` names the call as its budget and ledger rows do
       * (`r1/lead`, `r1/lead#2` for a member's second call in a round).
       */
      type: 'step-delta'
      runId: string
      round: number
      path: string
      agentId: string
      /** The member agent's wallet: who is writing. */
      wallet: string
      kind: SwarmMessageKind
      text: string
    }
  | { type: 'swarm-finish'; runId: string; result: SwarmRunResult }
  | { type: 'swarm-error'; runId: string; error: { code: string; message: string } }

/** A swarm member with the agent its id resolved to. */
export type ResolvedSwarmMember = SwarmMember & { agent: Agent }

/** A JSON-schema response format a member is asked to answer in. */
export type StructuredRequest = { name: string; schema: Record<string, unknown> }

export type RunMemberOptions = {
  /** A child of the run's budget; the call must be charged to it (as `runAgent` does). */
  budget: Budget
  signal: AbortSignal
  /** Set when the swarm wants a structured answer (a vote); the text must then be that JSON. */
  structured?: StructuredRequest
  /** The kind of message the answer becomes. */
  kind: SwarmMessageKind
  round: number
  /**
   * The swarm's conclave, when its members share it (`sharedContext: true`, `communication:
   * 'shared-memory'`, or a `collaborative` swarm); absent otherwise. The default member gets
   * the conclave tools on it, its writes attributed to its wallet.
   */
  conclave?: ConclaveSpace
  /**
   * Set when the run streams: the member's text as its model writes it (the default member
   * streams its `runAgent`; a custom one may call it or not). Whatever is given here goes out
   * as `step-delta` events; the returned `text` stays the answer.
   */
  onText?: (text: string) => void
}

/** Makes one member call. The default runs the member agent with `runAgent`. */
export type RunMember = (
  member: ResolvedSwarmMember,
  prompt: string,
  options: RunMemberOptions,
) => Promise<{ text: string; usage: SwarmUsage }>

export type AgentSource =
  | Agent[]
  | ((agentId: string) => Agent | undefined | Promise<Agent | undefined>)

export type RunSwarmOptions = {
  /** The agents the members' ids resolve to. */
  agents: AgentSource
  /** The run's budget; every member call gets a child of it (default: unlimited). */
  budget?: Budget
  signal?: AbortSignal
  models?: ModelRegistry
  toolRegistry?: ToolRegistry
  /**
   * A tool a member's card lists that its call is not given (default member only): by
   * default a workspace's or the conclave's tools are left out and any other is `UNKNOWN_TOOL`;
   * `'skip'` leaves out any, `'throw'` none.
   */
  unprovidedTools?: 'throw' | 'skip' | readonly string[]
  runId?: string
  onEvent?: (event: SwarmEvent) => void
  runMember?: RunMember
  /**
   * Member calls stream their model's text as `step-delta` events (default true). `false`
   * makes each call whole (`doGenerate`).
   */
  stepDeltas?: boolean
  /**
   * The run's shared state (collaborative drafts; what members see with `sharedContext`).
   * Default: a store of its own, keyed by the run's id, dropped when the run ends.
   */
  conclave?: { store: ConclaveStore; space?: string }
  /**
   * Member calls already made by an earlier execution of this run: a call whose key (`r1/lead`)
   * is recorded with the same prompt returns the recorded answer, calls no model and charges
   * nothing; every call that runs is recorded before its answer is used. With a journal the
   * run's own conclave keyspace (no `conclave.space` given) starts empty: replayed answers
   * rebuild it.
   */
  journal?: SwarmJournal
}
