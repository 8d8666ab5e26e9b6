export { createMemoryLoopGuard, type MemoryLoopGuardOptions } from './create-memory-loop-guard'
export { createRedisLoopGuard, type RedisLoopGuardOptions } from './create-redis-loop-guard'
export { Escalation, EscalationStatus } from './escalation'
export { EscalationNotFoundError, EscalationResolvedError } from './escalation-errors'
export { isLoopGuard } from './is-loop-guard'
export {
  type Admission,
  type AllowResult,
  type ConflictProblem,
  DEFAULT_MAX_HOPS,
  type GuardHistory,
  type LoopGuard,
  type LoopGuardOptions,
  type MessageRecord,
} from './loop-guard'
export { LoopGuardError, type LoopGuardErrorCode } from './loop-guard-error'
export { MessageConflictError } from './message-conflict-error'
