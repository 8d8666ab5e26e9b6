import { parsePlan, runValidation } from '@baton/mal'
import type { RunBooks } from '../db/ledger-repository'
import type { RunsRepository, StoredRun } from '../db/runs-repository'
import { NotFoundError } from '../http/http-errors'
import { RunTakenOverError } from '../scale/run-taken-over-error'
import { createRunNotifier, type RunNotifier } from './run-notifier'
import type { CreateRunServiceOptions } from './run-service'
import { createValidatedPlans, type ValidatedPlans } from './validated-plans'

/** A run executing in this process. */
export type Active = {
  controller: AbortController
  draining: boolean
  done: Promise<void>
  /** The run's spend so far, every charge of this attempt included (once it is known). */
  books?: () => RunBooks
  /** Writes the ledger rows of this attempt's charges that are still on their way. */
  flushSpend?: () => Promise<void>
}

/**
 * What the run service's parts share: its options, and the state of this process's runs (the
 * runs executing here, the jobs given to it, whether it is draining).
 */
export type RunContext = {
  readonly options: CreateRunServiceOptions
  readonly runs: RunsRepository
  readonly notifier: RunNotifier
  readonly me: string
  readonly active: Map<string, Active>
  /** Every job this process has been given and not settled, claimed or not yet. */
  readonly executing: Set<Promise<void>>
  /** The last job of each run given to this process: jobs of one run execute one at a time. */
  readonly byRun: Map<string, Promise<void>>
  // Runs waiting for the database to take their interruption (see interruptWhenBack).
  readonly recovering: Set<string>
  /** Plans validated here: by run until the run starts, and by content. */
  readonly plans: ValidatedPlans
  draining: boolean
}

/**
 * The shared state of a new run service.
 *
 * @example
 * const context = createRunContext(options)
 * const run = await findRun(context, id)
 */
export function createRunContext(options: CreateRunServiceOptions): RunContext {
  return {
    options,
    get runs() {
      return options.repositories.runs
    },
    notifier: options.notifier ?? createRunNotifier(),
    me: options.workerName ?? 'local',
    active: new Map(),
    executing: new Set(),
    byRun: new Map(),
    recovering: new Set(),
    plans: createValidatedPlans((source) => parsePlan(source, runValidation(options.maxRunSteps))),
    draining: false,
  }
}

/** Why a run was stopped by the drain: it is left interrupted (or handed over), not cancelled. */
export class ShutdownStop extends Error {
  constructor() {
    super('the server is shutting down')
  }
}

/**
 * Why a run was stopped when this process lost its lease on it (the queue could not renew its
 * job's lock: it was stalled past it, or cut off from Redis) and another process claimed it:
 * that one records its outcome; this one records nothing.
 */
export class LeaseLost extends Error {
  constructor() {
    super('this process lost its lease on the run: another takes it over')
  }
}

/**
 * Throws `RunTakenOverError` when `active` was stopped for a lost lease: the run's outcome is
 * the process's that takes it over, not a cancel recorded here.
 */
export function throwIfLeaseLost(context: RunContext, active: Active, runId: string): void {
  if (active.controller.signal.reason instanceof LeaseLost) {
    throw new RunTakenOverError({ runId, executedBy: context.me })
  }
}

/** The stored run, or a 404. */
export async function findRun(context: RunContext, id: string): Promise<StoredRun> {
  const run = await context.runs.find(id)
  if (!run) throw new NotFoundError('run', id)
  return run
}
