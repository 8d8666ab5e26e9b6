export {
  type CreateInProcessSwarmRunnerOptions,
  createInProcessSwarmRunner,
  type SwarmRunner,
} from './create-in-process-swarm-runner'
export { createDefaultRunMember } from './default-run-member'
export { parseVerdict } from './parse-verdict'
export { parseVote, voteJsonSchema } from './parse-vote'
export { type PreparedSwarm, prepareSwarm } from './prepare-swarm'
export { runSwarm } from './run-swarm'
export { scoreFit } from './score-fit'
export {
  SwarmJournalWriteError,
  SwarmMemberCallError,
  SwarmMemberNotFoundError,
  SwarmNotFoundError,
  SwarmRunCancelledError,
} from './swarm-errors'
export {
  createMemorySwarmJournal,
  type MemorySwarmJournal,
  type SwarmJournal,
  type SwarmJournalEntry,
} from './swarm-journal'
export { hasConsensus, tallyVotes } from './tally-votes'
export type {
  AgentSource,
  ResolvedSwarmMember,
  RunMember,
  RunMemberOptions,
  RunSwarmOptions,
  StructuredRequest,
  SwarmEvent,
  SwarmMessage,
  SwarmMessageKind,
  SwarmRound,
  SwarmRunResult,
  SwarmRunStatus,
  SwarmTally,
  SwarmUsage,
} from './types'
