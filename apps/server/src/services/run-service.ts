import { randomUUID } from 'node:crypto'
import {
  type AgentSwarm,
  type Budget,
  type BudgetInput,
  Budget as BudgetSchema,
  type ChargeEvent,
  createBudget,
  type MemoryStore,
  type ModelRegistry,
  parseWith,
  type ReceiptSigner,
  type RegistryClient,
} from '@baton/core'
import {
  type AgentHost,
  type ConclaveStore,
  type Discovery,
  parsePlan,
  type RunEvent,
  type RunPlanOptions,
  type RunResult,
  type RunState,
  resumeRun,
  runPlan,
  runSwarm,
  runValidation,
  type SwarmEvent,
  type SwarmJournal,
} from '@baton/mal'
import type { FastifyBaseLogger } from 'fastify'
import type { StoredUsage } from '../db/database'
import { isDatabaseFault } from '../db/database-errors'
import type { RunBooks } from '../db/ledger-repository'
import type { Repositories } from '../db/repositories'
import {
  finalStatuses,
  type RunStatus,
  type StoredRun,
  type StoredStep,
} from '../db/runs-repository'
import { HttpError, NotFoundError } from '../http/http-errors'
import type { RunJob, RunQueue } from '../queue'
import { isTakenOver } from '../scale/is-taken-over'
import { addBooks, emptyBooks } from './add-books'
import { createEventBatcher } from './event-batcher'
import { interruptedEvent } from './interrupted-event'
import { planTools } from './plan-tools'
import { runFileStore } from './run-file-store'
import { createRunNotifier, type RunNotifier } from './run-notifier'
import { createSerialWriter } from './serial-writer'
import { createSpendRecorder } from './spend-recorder'
import { uncountedSpend } from './uncounted-spend'

export type StartRunInput = {
  /** A MAL plan: YAML or JSON text, or an object. Validated before anything is stored. */
  plan: unknown
  inputs?: Record<string, unknown>
  budget?: BudgetInput
  /** The principal starting the run (`request.principal.id`); default `anonymous`. */
  owner?: string
}

export interface RunService {
  /** Validates and stores the run, queues it, and answers its id (202 semantics). */
  start(input: StartRunInput): Promise<{ id: string }>
  startSwarm(
    swarm: AgentSwarm,
    task: string,
    budget?: BudgetInput,
    owner?: string,
  ): Promise<{ id: string }>
  cancel(id: string): Promise<StoredRun>
  answer(id: string, answer: unknown): Promise<void>
  /** Continues an interrupted run from its last finished step. */
  resume(id: string): Promise<void>
  /**
   * At start: marks runs a previous process left running (or queued again after they had run)
   * as interrupted, and queues again the runs it left queued that never ran. Answers both.
   */
  recoverInterrupted(): Promise<{ interrupted: string[]; queued: string[] }>
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

type Active = {
  controller: AbortController
  draining: boolean
  done: Promise<void>
  /** The run's spend so far, every charge of this attempt included (once it is known). */
  books?: () => RunBooks
  /** Writes the ledger rows of this attempt's charges that are still on their way. */
  flushSpend?: () => Promise<void>
}

const zero: StoredUsage = { calls: 0, tokens: 0, costUsd: 0 }
const executable: readonly RunStatus[] = ['queued', 'running']
const topLevelPath = /^steps\[\d+\]$/

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

class ShutdownStop extends Error {
  constructor() {
    super('the server is shutting down')
  }
}

class Runs implements RunService {
  readonly notifier: RunNotifier
  readonly #options: CreateRunServiceOptions
  readonly #active = new Map<string, Active>()
  /** Every job this process has been given and not settled, claimed or not yet. */
  readonly #executing = new Set<Promise<void>>()
  /** The last job of each run given to this process: jobs of one run execute one at a time. */
  readonly #byRun = new Map<string, Promise<void>>()
  readonly #me: string
  // Runs waiting for the database to take their interruption (see #interruptWhenBack).
  readonly #recovering = new Set<string>()
  #draining = false

  constructor(options: CreateRunServiceOptions) {
    this.#options = options
    this.notifier = options.notifier ?? createRunNotifier()
    this.#me = options.workerName ?? 'local'
    options.queue.process((job) => {
      // A job may come back to the process still executing its run (its lease ran out while
      // Redis was away, and this process took the job again). The fence is this process's name,
      // so a second execution here would not be refused: it waits for the first, and then finds
      // the run finished (and stops) or left unfinished (and continues it).
      const previous = this.#byRun.get(job.runId)
      const work = previous ? previous.then(() => this.#execute(job)) : this.#execute(job)
      const tracked: Promise<void> = work
        .catch(() => {})
        .finally(() => {
          this.#executing.delete(tracked)
          if (this.#byRun.get(job.runId) === tracked) this.#byRun.delete(job.runId)
        })
      this.#executing.add(tracked)
      this.#byRun.set(job.runId, tracked)
      return work
    })
  }

  get #runs() {
    return this.#options.repositories.runs
  }

  active(): string[] {
    return [...this.#active.keys()]
  }

  async start(input: StartRunInput): Promise<{ id: string }> {
    this.#assertOpen()
    const plan = parsePlan(input.plan as string | object, runValidation(this.#options.maxRunSteps))
    const budget = input.budget ? parseWith(BudgetSchema, input.budget, 'budget') : undefined
    const id = randomUUID()
    await this.#runs.create({
      id,
      kind: 'plan',
      plan: plan as unknown as Record<string, unknown>,
      inputs: input.inputs ?? {},
      ...(input.budget ? { budget: input.budget as Record<string, unknown> } : {}),
      ...(input.owner ? { owner: input.owner } : {}),
    })
    void budget
    await this.#queueNew({ kind: 'start', runId: id })
    return { id }
  }

  async startSwarm(
    swarm: AgentSwarm,
    task: string,
    budget?: BudgetInput,
    owner?: string,
  ): Promise<{ id: string }> {
    this.#assertOpen()
    if (budget) parseWith(BudgetSchema, budget, 'budget')
    const id = randomUUID()
    await this.#runs.create({
      id,
      kind: 'swarm',
      swarmId: swarm.id,
      plan: swarm as unknown as Record<string, unknown>,
      inputs: { task },
      ...(budget ? { budget: budget as Record<string, unknown> } : {}),
      ...(owner ? { owner } : {}),
    })
    await this.#queueNew({ kind: 'swarm', runId: id })
    return { id }
  }

  /**
   * Queues a run just stored; when the queue does not take it (Redis away past its bound) the
   * run is deleted again, so nothing of the refused request executes later.
   */
  async #queueNew(job: RunJob): Promise<void> {
    try {
      await this.#options.queue.add(job)
    } catch (error) {
      await this.#runs.discardUnstarted(job.runId).catch((discardError: unknown) => {
        this.#options.logger.error({ err: discardError, runId: job.runId }, 'discard failed')
      })
      throw error
    }
  }

  /** Queues a run set back to `queued`; when the queue does not take it, its status is restored. */
  async #queueAgain(job: RunJob, status: RunStatus): Promise<void> {
    try {
      await this.#options.queue.add(job)
    } catch (error) {
      await this.#runs.setStatus(job.runId, status).catch(() => {})
      throw error
    }
  }

  async cancel(id: string): Promise<StoredRun> {
    const run = await this.#find(id)
    if (finalStatuses.includes(run.status)) return run
    const active = this.#active.get(id)
    if (active) {
      active.controller.abort(new Error('the run was cancelled'))
      await active.done
    } else {
      await this.#runs.finish({
        runId: id,
        status: 'cancelled',
        output: null,
        error: { code: 'CANCELLED', message: 'The run was cancelled.' },
        usage: run.usage,
        usageByWallet: run.usageByWallet,
        state: null,
        question: null,
      })
      this.notifier.notify(id)
    }
    return this.#find(id)
  }

  async answer(id: string, answer: unknown): Promise<void> {
    this.#assertOpen()
    const run = await this.#find(id)
    if (run.status !== 'paused' || !run.state) {
      throw new HttpError(409, 'RUN_NOT_RESUMABLE', `Run "${id}" is ${run.status}, not paused.`, {
        status: run.status,
      })
    }
    await this.#runs.setStatus(id, 'queued')
    await this.#queueAgain({ kind: 'answer', runId: id, answer }, 'paused')
  }

  async resume(id: string): Promise<void> {
    this.#assertOpen()
    const run = await this.#find(id)
    if (run.status !== 'interrupted') {
      throw new HttpError(
        409,
        'RUN_NOT_RESUMABLE',
        `Run "${id}" is ${run.status}; only an interrupted run can be resumed${run.status === 'paused' ? ' (a paused run takes an answer)' : ''}.`,
        { status: run.status },
      )
    }
    await this.#runs.setStatus(id, 'queued')
    await this.#queueAgain(
      { kind: run.kind === 'swarm' ? 'swarm' : 'resume', runId: id },
      'interrupted',
    )
  }

  async recoverInterrupted(): Promise<{ interrupted: string[]; queued: string[] }> {
    const interrupted = await this.#runs.interruptUnfinished()
    // A run killed mid-step spent in that step: its usage is its ledger's, resumed or not.
    for (const id of interrupted) {
      await this.#runs.recountInterrupted(
        id,
        await this.#options.repositories.ledger.booksOfRun(id),
      )
    }
    const queued = await this.#runs.neverStarted()
    for (const run of queued) {
      await this.#options.queue.add({
        kind: run.kind === 'swarm' ? 'swarm' : 'start',
        runId: run.id,
      })
    }
    return { interrupted, queued: queued.map((run) => run.id) }
  }

  /**
   * A run whose database write failed (the database away, its disk full) is left `interrupted`
   * once the database takes the write, with its ledger as its usage: it is resumable from its
   * last checkpoint, and its event streams end. Retried with a growing pause until then (or
   * until shutdown: a run still `running` then is interrupted at the next start).
   */
  #interruptWhenBack(runId: string): void {
    if (this.#recovering.has(runId)) return
    this.#recovering.add(runId)
    let pauseMs = 250
    const attempt = async () => {
      try {
        const books = await this.#options.repositories.ledger.booksOfRun(runId)
        if (await this.#runs.interrupt(runId, books)) {
          this.#options.logger.warn({ runId }, 'run interrupted by a database fault; resumable')
        }
        this.#recovering.delete(runId)
        this.notifier.notify(runId)
      } catch {
        if (this.#draining) {
          this.#recovering.delete(runId)
          return
        }
        pauseMs = Math.min(pauseMs * 2, 5_000)
        setTimeout(() => void attempt(), pauseMs).unref()
      }
    }
    void attempt()
  }

  async drain(timeoutMs: number): Promise<void> {
    this.#draining = true
    for (const active of this.#active.values()) active.draining = true
    // Nothing new starts here from now on: without this, every job that waited would start
    // (and be stopped again) as one in flight made room, and the bound would not hold.
    await this.#options.queue.pause()
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs)
    })
    const outcome = await Promise.race([this.#settled(), timeout])
    clearTimeout(timer)
    if (outcome === 'timeout') {
      for (const active of this.#active.values()) active.controller.abort(new ShutdownStop())
      await this.#settled()
    }
  }

  /** Resolves once every job given to this process has settled (those given meanwhile too). */
  async #settled(): Promise<void> {
    while (this.#executing.size > 0) await Promise.allSettled([...this.#executing])
  }

  #assertOpen(): void {
    if (this.#draining) {
      throw new HttpError(503, 'SHUTTING_DOWN', 'The server is shutting down.')
    }
  }

  async #find(id: string): Promise<StoredRun> {
    const run = await this.#runs.find(id)
    if (!run) throw new NotFoundError('run', id)
    return run
  }

  async #execute(job: RunJob): Promise<void> {
    const run = await this.#runs.find(job.runId)
    // Only a queued run starts (a running one is taken over): a job whose run is gone, paused,
    // interrupted or final was given up on by the request that added it, or ran already.
    if (!run || !executable.includes(run.status)) return
    if (this.#draining) {
      // Taken as the queue was paused: the run never started here. It stays queued, for
      // another process (handed back) or for this one's next start.
      if (this.#options.handOverOnShutdown) await this.#options.queue.add(job)
      return
    }
    const controller = new AbortController()
    let settle!: () => void
    const active: Active = {
      controller,
      draining: this.#draining,
      done: new Promise<void>((resolve) => {
        settle = resolve
      }),
    }
    this.#active.set(run.id, active)
    try {
      if (job.kind === 'swarm') await this.#executeSwarm(run, active)
      else await this.#executePlan(run, job, active)
    } catch (error) {
      // Another process holds the run now: it records the outcome, not this one.
      if (isTakenOver(error)) {
        this.#options.logger.warn({ runId: run.id }, 'run taken over by another process')
        await this.#countSpendOfCancelled(run.id, active).catch((recountError: unknown) => {
          this.#options.logger.warn({ err: recountError, runId: run.id }, 'recount refused')
        })
        return
      }
      // Among many processes the queue tries the job again (BullMQ: attempts with a backoff),
      // from the last committed step; a single process leaves the run interrupted, resumable.
      const retriedByQueue = this.#options.handOverOnShutdown === true
      if (isDatabaseFault(error)) {
        this.#options.logger.error({ err: error, runId: run.id }, 'run stopped by a database fault')
        if (retriedByQueue) throw error
        this.#interruptWhenBack(run.id)
        return
      }
      this.#options.logger.error({ err: error, runId: run.id }, 'run executor failed')
      const books = active.books?.() ?? run
      await this.#runs
        .finish({
          runId: run.id,
          status: 'failed',
          output: null,
          error: { code: 'RUN_FAILED', message: (error as Error).message },
          usage: books.usage,
          usageByWallet: books.usageByWallet,
          state: run.state,
          question: null,
        })
        .catch((recordError: unknown) => {
          // Nothing could be recorded (the database is down): the queue may try the job again
          // later (BullMQ does; it then continues from the last committed step).
          if (isDatabaseFault(recordError) && !retriedByQueue) this.#interruptWhenBack(run.id)
          else throw recordError
        })
    } finally {
      this.#active.delete(run.id)
      settle()
      this.notifier.notify(run.id)
      // Its streamed text is in its stored events now; readers who come later read those.
      this.notifier.forget(run.id)
    }
  }

  /**
   * The run's budget (unlimited when it was given none, so its charges can be followed), with
   * what the run spent before this attempt already charged to it: a continued run has what its
   * budget had, less what it spent, interrupted attempts included.
   */
  /**
   * A run cancelled by another process while this one executed it: what this attempt spent
   * until it learned of the cancel is on the ledger; the run's usage is made to count it too
   * (a run taken over by a live process is that process's to count).
   */
  async #countSpendOfCancelled(runId: string, active: Active): Promise<void> {
    await active.flushSpend?.()
    const now = await this.#runs.find(runId)
    if (now?.status !== 'cancelled') return
    const counted = { usage: now.usage, usageByWallet: now.usageByWallet }
    const extra = uncountedSpend(await this.#options.repositories.ledger.booksOfRun(runId), counted)
    if (Object.keys(extra.usageByWallet).length === 0) return
    await this.#runs.recountCancelled(runId, addBooks(counted, extra))
  }

  #budgetSpent(run: StoredRun, spent: StoredUsage): Budget {
    const given = (run.budget as BudgetInput | null) ?? {}
    const { maxRunWallMs } = this.#options
    // A run without a time limit of its own gets the server's: no run holds a worker forever.
    const timed = hasWallLimit(given) || maxRunWallMs === undefined
    const budget = createBudget(timed ? given : { ...given, maxWallMs: maxRunWallMs })
    if (spent.calls > 0 || spent.tokens > 0 || spent.costUsd > 0) {
      // Recorded as it is even past a limit (it was spent); a budget it exhausts ends the run.
      budget.reserve({}).settle(spent)
    }
    return budget
  }

  async #executePlan(run: StoredRun, job: RunJob, active: Active): Promise<void> {
    const runs = this.#runs
    const writer = createSerialWriter()
    const events = createEventBatcher({
      writer,
      append: async (batch) => {
        await runs.appendEvents(run.id, batch, { executedBy: this.#me })
        this.notifier.notify(run.id)
      },
    })
    // Finished top-level steps not committed yet (the last step has no checkpoint after it).
    let uncommitted: Extract<RunEvent, { type: 'step-finish' }>[] = []
    let checkpointed: RunState | undefined
    let fromSequence = 0
    // A write the database refused (it is away, its disk is full): the run stops there.
    let databaseFault: unknown
    const noteFault = (error: unknown) => {
      if (databaseFault === undefined && isDatabaseFault(error)) databaseFault = error
    }

    // Still `running` when a job starts: the process that ran it died (its lease expired).
    const takeover = run.status === 'running'
    const takenOver = { from: run.executedBy, by: this.#me }
    const stored =
      job.kind === 'start' && !takeover ? undefined : ((run.state as RunState | null) ?? undefined)
    const attempt = await runs.claim(run.id, this.#me)
    // An attempt that spent and died before its commit left rows the state does not count: the
    // step runs again, so both attempts are the run's spend ("at least once" costs money). It
    // goes into the state (usage, the plan's limits) or, with no checkpoint yet, is carried
    // beside it; either way the run's budget is charged with it before the run continues.
    const extra = uncountedSpend(
      await this.#options.repositories.ledger.booksOfRun(run.id),
      stored ?? emptyBooks,
    )
    const state = stored ? { ...stored, ...addBooks(stored, extra) } : undefined
    const carried = state ? emptyBooks : extra
    const before = state ? { usage: state.usage, usageByWallet: state.usageByWallet } : carried
    const budget = this.#budgetSpent(run, before.usage)
    const recorder = createSpendRecorder({
      runId: run.id,
      attempt,
      ledger: this.#options.repositories.ledger,
      writer,
      before,
    })
    active.books = recorder.books
    active.flushSpend = () => writer.flush()
    // The state a run continues from, with what was carried beside mal's books.
    const withCarried = (checkpoint: RunState): RunState => ({
      ...checkpoint,
      ...addBooks(checkpoint, carried),
    })
    if (takeover) this.#options.logger.warn({ runId: run.id, ...takenOver }, 'run taken over')
    if (job.kind === 'resume' || job.kind === 'answer' || takeover) {
      // Whatever a killed process stored past its last checkpoint is replayed by this run.
      fromSequence = state?.sequence ?? 0
      await runs.dropEventsFrom(run.id, fromSequence)
    }
    this.notifier.notify(run.id)

    // Stopped at shutdown (failed at a step boundary, or cancelled by the drain): interrupted.
    const stoppedForShutdown = (status: RunStatus | string) =>
      (active.draining || this.#draining) &&
      (status === 'failed' ||
        (status === 'cancelled' && active.controller.signal.reason instanceof ShutdownStop))
    const options: RunPlanOptions = {
      registry: this.#options.registry,
      host: this.#options.host,
      models: this.#options.models,
      memory: this.#options.memory,
      tools: planTools(),
      ...(this.#options.discovery ? { discovery: this.#options.discovery } : {}),
      ...(this.#options.conclave ? { conclave: { store: this.#options.conclave } } : {}),
      files: runFileStore(this.#options.repositories.runFiles),
      ...(this.#options.receiptSigner ? { receiptSigner: this.#options.receiptSigner } : {}),
      ...(this.#options.requireReceipts ? { requireReceipt: true } : {}),
      signal: active.controller.signal,
      budget,
      onEvent: (event) => {
        // A step's streamed text is live only: handed to the run's readers, never stored.
        if (event.type === 'step-delta') return this.notifier.delta(event)
        this.#options.onRunEvent?.('plan', event)
        recorder.observe(event)
        if (event.type === 'step-finish' && topLevelPath.test(event.path)) uncommitted.push(event)
        // A run taken over says so in its (re-)start event.
        const stored =
          takeover && event.type === 'run-start'
            ? { ...event, takenOver }
            : event.type === 'run-finish' && stoppedForShutdown(event.status)
              ? interruptedEvent(event, this.#options.handOverOnShutdown === true)
              : event
        events.push(stored as unknown as Record<string, unknown>)
      },
      ...(this.#options.maxRunSteps === undefined
        ? {}
        : { maxRunSteps: this.#options.maxRunSteps }),
      beforeStep: () => {
        // At shutdown a run stops at its next step, at any depth (a long loop is one top-level
        // step); it is resumed from its last checkpoint.
        if (active.draining || this.#draining) throw new ShutdownStop()
        // Events wait in memory to be stored: past a bound the run waits for the database.
        return events.room()
      },
      onCheckpoint: async (mine) => {
        // The step's ledger rows are written before its commit, which writes none of its own.
        await writer.flush().catch((error: unknown) => {
          noteFault(error)
          throw error
        })
        const checkpoint = withCarried(mine)
        const step = uncommitted.at(-1)
        uncommitted = []
        await runs
          .commitStep({
            runId: run.id,
            step: step
              ? storedStep(step)
              : {
                  path: `steps[${checkpoint.cursor.index - 1}]`,
                  op: 'unknown',
                  saveAs: null,
                  value: null,
                  usage: zero,
                  wallet: null,
                  durationMs: 0,
                  sequence: checkpoint.sequence,
                  finishedAt: new Date().toISOString(),
                },
            events: [],
            state: checkpoint as unknown as Record<string, unknown>,
            usage: checkpoint.usage,
            usageByWallet: checkpoint.usageByWallet,
            executedBy: this.#me,
          })
          .catch((error: unknown) => {
            noteFault(error)
            throw error
          })
        checkpointed = checkpoint
        // At shutdown a run stops at this boundary; it is resumed from this checkpoint.
        if (active.draining || this.#draining) throw new ShutdownStop()
      },
    }

    let result: RunResult
    const stopRecording = recorder.listen(budget)
    try {
      if (!state) {
        result = await runPlan(run.plan, { ...options, inputs: run.inputs, runId: run.id })
      } else if (job.kind === 'answer' && state.pending !== undefined) {
        result = await resumeRun(state, job.answer, options)
      } else {
        result = await resumeRun(state, undefined, options)
      }
    } finally {
      stopRecording()
    }
    await writer.flush().catch((error: unknown) => {
      noteFault(error)
      this.#options.logger.error({ err: error, runId: run.id }, 'storing run events failed')
    })
    // Failed because a write was refused, not because of its plan: see `#execute`.
    if (databaseFault !== undefined && result.status === 'failed') throw databaseFault

    if (stoppedForShutdown(result.status)) {
      const last = checkpointed ?? state
      const handOver = this.#options.handOverOnShutdown === true
      // The run's usage is all it spent. Its state stays the last checkpoint: a resume finds the
      // spend of the step cut short on the books past that state, and counts it once.
      const books = recorder.books()
      await runs.finish({
        runId: run.id,
        status: handOver ? 'queued' : 'interrupted',
        output: null,
        error: null,
        usage: books.usage,
        usageByWallet: books.usageByWallet,
        state: (last as unknown as Record<string, unknown>) ?? null,
        question: null,
        executedBy: this.#me,
      })
      if (handOver) await this.#options.queue.add({ kind: 'resume', runId: run.id })
      return
    }
    const status: RunStatus = result.status
    const books = addBooks(result, carried)
    await runs.finish({
      runId: run.id,
      status,
      output: result.output ?? null,
      error: result.error ? { ...result.error } : null,
      usage: books.usage,
      usageByWallet: books.usageByWallet,
      state:
        status === 'paused' && result.state
          ? (withCarried(result.state) as unknown as Record<string, unknown>)
          : null,
      question: result.question ?? null,
      steps: uncommitted.map(storedStep),
      executedBy: this.#me,
    })
  }

  async #executeSwarm(run: StoredRun, active: Active): Promise<void> {
    const runs = this.#runs
    const writer = createSerialWriter()
    let sequence = 0
    const takenOver = run.status === 'running' ? { from: run.executedBy, by: this.#me } : undefined
    const attempt = await runs.claim(run.id, this.#me)
    await runs.dropEventsFrom(run.id, 0)
    // A swarm has no checkpoints but a journal: an attempt that died (or was stopped) is run
    // again from the beginning, and every member call it finished is answered from the journal
    // (no model call, no charge); the calls it had not finished run again. What it spent is the
    // run's all the same: its rows are on the ledger past what the run's record counts, and go
    // into this attempt's books and budget, so a replayed call is counted once.
    const stored = { usage: run.usage, usageByWallet: run.usageByWallet }
    const before = addBooks(
      stored,
      uncountedSpend(await this.#options.repositories.ledger.booksOfRun(run.id), stored),
    )
    const budget = this.#budgetSpent(run, before.usage)
    const recorder = createSpendRecorder({
      runId: run.id,
      attempt,
      ledger: this.#options.repositories.ledger,
      writer,
      before,
      stepOf: swarmMemberStep(run.id),
    })
    active.books = recorder.books
    active.flushSpend = () => writer.flush()
    const journal = await this.#swarmJournal(run.id, attempt, writer)
    if (takenOver) this.#options.logger.warn({ runId: run.id, ...takenOver }, 'run taken over')
    const agents = this.#options.repositories.agents
    const stopRecording = recorder.listen(budget)
    const result = await runSwarm(
      run.plan as unknown as AgentSwarm,
      String(run.inputs.task ?? ''),
      {
        agents: async (agentId) => agents.findById(agentId),
        models: this.#options.models,
        signal: active.controller.signal,
        runId: run.id,
        ...(this.#options.conclave ? { conclave: { store: this.#options.conclave } } : {}),
        budget,
        journal,
        onEvent: (event: SwarmEvent) => {
          this.#options.onRunEvent?.('swarm', event)
          const stored = {
            ...event,
            ...(sequence === 0 && takenOver ? { takenOver } : {}),
            sequence: sequence++,
            at: new Date().toISOString(),
          }
          writer.write(async () => {
            await runs.appendEvents(run.id, [stored], { executedBy: this.#me })
            this.notifier.notify(run.id)
          })
        },
      },
    )
      .catch((error: unknown) => {
        const stored = {
          type: 'swarm-error',
          runId: run.id,
          error: {
            code: (error as { code?: string }).code ?? 'SWARM_FAILED',
            message: (error as Error).message,
          },
          sequence: sequence++,
          at: new Date().toISOString(),
        }
        writer.write(() => runs.appendEvents(run.id, [stored], { executedBy: this.#me }))
        return undefined
      })
      .finally(stopRecording)
    // The ledger rows were written as each member call was charged; the finish writes none.
    await writer.flush().catch((error: unknown) => {
      this.#options.logger.error({ err: error, runId: run.id }, 'storing swarm events failed')
    })
    const books = recorder.books()
    const interrupted = (active.draining || this.#draining) && result?.status === 'cancelled'
    const handOver = interrupted && this.#options.handOverOnShutdown === true
    await runs.finish({
      runId: run.id,
      status: handOver ? 'queued' : interrupted ? 'interrupted' : (result?.status ?? 'failed'),
      output: result?.output ?? null,
      error:
        result?.error ??
        (result ? null : { code: 'SWARM_FAILED', message: 'The swarm could not start.' }),
      usage: books.usage,
      usageByWallet: books.usageByWallet,
      state: null,
      question: null,
      executedBy: this.#me,
    })
    if (handOver) await this.#options.queue.add({ kind: 'swarm', runId: run.id })
  }

  /**
   * The swarm run's journal as this attempt starts: the calls earlier attempts finished, read
   * once, and each call this attempt finishes written (fenced: only while this process holds
   * the run) before mal uses its answer. The call's ledger rows are written before its entry,
   * so a recorded call's spend is always on the books.
   */
  async #swarmJournal(
    runId: string,
    attempt: number,
    writer: ReturnType<typeof createSerialWriter>,
  ): Promise<SwarmJournal> {
    const repository = this.#options.repositories.swarmJournal
    const recorded = new Map((await repository.callsOfRun(runId)).map((call) => [call.key, call]))
    return {
      recorded: (key) => recorded.get(key),
      record: async (key, entry) => {
        await writer.flush().catch((error: unknown) => {
          if (isTakenOver(error)) throw error
          this.#options.logger.error({ err: error, runId }, 'storing swarm events failed')
        })
        await repository.record({ runId, key, entry, attempt, executedBy: this.#me })
      },
    }
  }
}

function hasWallLimit(budget: BudgetInput): boolean {
  return budget.maxWallMs !== undefined || budget.seconds !== undefined
}

function storedStep(event: Extract<RunEvent, { type: 'step-finish' }>): StoredStep {
  return {
    path: event.path,
    op: event.op,
    saveAs: event.saveAs ?? null,
    value: event.value ?? null,
    usage: event.usage,
    wallet: event.wallet,
    durationMs: event.durationMs,
    sequence: event.sequence,
    finishedAt: event.at,
  }
}

/**
 * How a swarm run's ledger rows name the member call that spent: mal gives each call a budget
 * named `{runId}/r{round}/{agentId}` (`#2`, `#3`, … for a member called again in one round), so
 * a row's `stepPath` is that name without the run id the row carries already (`r1/lead`).
 */
function swarmMemberStep(runId: string): (charge: ChargeEvent) => string | undefined {
  const prefix = `${runId}/`
  // A charge on the run's own budget is no member call's.
  return (charge) =>
    charge.budget.startsWith(prefix) ? charge.budget.slice(prefix.length) : undefined
}
