import type {
  AgentSwarm,
  BudgetInput,
  MemoryStore,
  ModelRegistry,
  ReceiptSigner,
  RegistryClient,
} from '@baton/core'
import type { AgentHost, ConclaveStore, Discovery } from '@baton/mal'
import type { FastifyBaseLogger } from 'fastify'
import type { Repositories } from '../db/repositories'
import type { NeverStartedFilter } from '../db/run-recovery-repository'
import type { StoredRun } from '../db/runs-repository'
import type { RunQueue } from '../queue'
import { cancelRun } from './run-cancel'
import { createRunContext, type RunContext } from './run-context'
import { answerRun, resumeRun } from './run-continue'
import { drainRuns } from './run-drain'
import { processJobs } from './run-execution'
import type { RunNotifier } from './run-notifier'
import { queueNeverStarted, recoverInterrupted } from './run-recovery'
import { startRun, startSwarmRun } from './run-start'

export type StartRunInput = {
  /** A MAL plan: YAML or JSON text, or an object. Validated before anything is stored. */
  plan: unknown
  inputs?: Record<string, unknown>
  budget?: BudgetInput
  /** The principal starting the run (`request.principal.id`); default `anonymous`. */
  owner?: string
  /** The run's id, when the caller chose it before (to find the run again); default a new one. */
  id?: string
}

export type StartSwarmInput = {
  swarm: AgentSwarm
  task: string
  budget?: BudgetInput
  owner?: string
  /** The run's id, when the caller chose it before (to find the run again); default a new one. */
  id?: string
}

export interface RunService {
  /** Validates and stores the run, queues it, and answers its id (202 semantics). */
  start(input: StartRunInput): Promise<{ id: string }>
  /** Stores a run of `swarm` on `task`, queues it, and answers its id (202 semantics). */
  startSwarm(input: StartSwarmInput): Promise<{ id: string }>
  cancel(id: string): Promise<StoredRun>
  /** Queues a paused run's answer; with `question`, only while the run asks that one. */
  answer(id: string, answer: unknown, question?: string): Promise<void>
  /** Continues an interrupted run from its last finished step. */
  resume(id: string): Promise<void>
  /**
   * At start: marks runs a previous process left running (or queued again after they had run)
   * as interrupted, and queues again the runs it left queued that never ran. Answers both.
   */
  recoverInterrupted(): Promise<{ interrupted: string[]; queued: string[] }>
  /**
   * Queues again runs stored and never started: among many processes, a process that died
   * between storing a run and queueing it left the run queued with no job, and nothing else
   * would start it. Each gets its first job under the key that job had, so a run whose job is
   * waiting or running is not queued twice. `storedBefore` leaves alone the runs a living
   * process may still be queueing (or, refused by Redis, deleting); `id` looks at one run.
   * Answers the runs queued again.
   */
  queueNeverStarted(filter?: NeverStartedFilter): Promise<string[]>
  readonly notifier: RunNotifier
  /** Runs executing in this process. */
  active(): string[]
  /**
   * Stops taking jobs first (the queue is paused: runs still queued stay queued), then lets
   * runs in flight reach their next step boundary (at most `timeoutMs`) and aborts the rest;
   * every run stopped this way is left `interrupted`, resumable (or, with `handOverOnShutdown`,
   * goes back on the queue).
   */
  drain(timeoutMs: number): Promise<void>
}

export type CreateRunServiceOptions = {
  repositories: Repositories
  registry: RegistryClient
  host: AgentHost
  models: ModelRegistry
  /** How `search_*` steps look things up (the agents table's full-text index). */
  discovery?: Discovery
  /** The runs' shared state (the database's, so every process sees one conclave). */
  conclave?: ConclaveStore
  /** Signs the receipts of runs that require one. */
  receiptSigner?: ReceiptSigner
  /** Every run gets a receipt (BATON_REQUIRE_RECEIPTS). */
  requireReceipts?: boolean
  /** Steps a run may execute, and a plan's worst case may reach (BATON_RUN_MAX_STEPS; mal's default). */
  maxRunSteps?: number
  /** Wall time of a run whose budget sets no `maxWallMs` (BATON_RUN_MAX_WALL_MS; none by default). */
  maxRunWallMs?: number
  memory: MemoryStore
  queue: RunQueue
  logger: FastifyBaseLogger
  /** Wakes SSE readers; scale-out passes one shared through Redis (default: this process only). */
  notifier?: RunNotifier
  /** This process's name, recorded as each run's `executedBy` and checked by its commits. */
  workerName?: string
  /** Sees every event of every run executed here (the metrics count runs and steps from them). */
  onRunEvent?: (kind: 'plan' | 'swarm', event: { type: string }) => void
  /**
   * Scale-out: a run stopped at a step boundary by shutdown goes back on the queue for another
   * process, instead of waiting, interrupted, for a resume.
   */
  handOverOnShutdown?: boolean
}

/**
 * The run service: stores runs, executes them through the queue, writes each charge to the
 * ledger as it is spent (with its step, or a swarm's member call, and the run's attempt),
 * commits each finished top-level step (value, usage, checkpoint) before the next starts, and
 * stores every event so SSE readers can replay them. A run continued after an attempt that
 * spent and never committed (a takeover, a resume; for a swarm, which starts again from its
 * beginning and replays the member calls its journal recorded, every earlier attempt) counts
 * that spend in its usage and its budget.
 *
 * @example
 * const runs = createRunService({ repositories, registry, host, models, memory, queue, logger })
 * const { id } = await runs.start({ plan: yaml, inputs: { request: 'hi' } })
 */
export function createRunService(options: CreateRunServiceOptions): RunService {
  return new Runs(options)
}

/**
 * The run service's public face: each request is one job's file (`run-start.ts`,
 * `run-continue.ts`, `run-cancel.ts`, `run-recovery.ts`, `run-drain.ts`); the queue's jobs
 * execute in `run-execution.ts` (a plan's in `plan-run.ts`, a swarm's in `swarm-run.ts`).
 */
class Runs implements RunService {
  readonly notifier: RunNotifier
  readonly #context: RunContext

  constructor(options: CreateRunServiceOptions) {
    this.#context = createRunContext(options)
    this.notifier = this.#context.notifier
    processJobs(this.#context)
  }

  active(): string[] {
    return [...this.#context.active.keys()]
  }

  start(input: StartRunInput): Promise<{ id: string }> {
    return startRun(this.#context, input)
  }

  startSwarm(input: StartSwarmInput): Promise<{ id: string }> {
    return startSwarmRun(this.#context, input)
  }

  cancel(id: string): Promise<StoredRun> {
    return cancelRun(this.#context, id)
  }

  answer(id: string, answer: unknown, question?: string): Promise<void> {
    return answerRun(this.#context, id, answer, question)
  }

  resume(id: string): Promise<void> {
    return resumeRun(this.#context, id)
  }

  recoverInterrupted(): Promise<{ interrupted: string[]; queued: string[] }> {
    return recoverInterrupted(this.#context)
  }

  queueNeverStarted(filter: NeverStartedFilter = {}): Promise<string[]> {
    return queueNeverStarted(this.#context, filter)
  }

  drain(timeoutMs: number): Promise<void> {
    return drainRuns(this.#context, timeoutMs)
  }
}
