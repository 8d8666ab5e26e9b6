import {
  type Plan,
  type RunEvent,
  type RunPlanOptions,
  type RunResult,
  type RunState,
  resumeRun,
  runPlan,
} from '@baton/mal'
import type { StoredUsage } from '../db/database'
import { isDatabaseFault } from '../db/database-errors'
import type { RunStatus, StoredRun, StoredStep } from '../db/runs-repository'
import type { RunJob } from '../queue'
import { addBooks, emptyBooks } from './add-books'
import { createEventBatcher } from './event-batcher'
import { interruptedEvent } from './interrupted-event'
import { planTools } from './plan-tools'
import { budgetSpent } from './run-budget'
import { type Active, type RunContext, ShutdownStop, throwIfLeaseLost } from './run-context'
import { runFileStore } from './run-file-store'
import { createSerialWriter } from './serial-writer'
import { createSpendRecorder } from './spend-recorder'
import { uncountedSpend } from './uncounted-spend'

const zero: StoredUsage = { calls: 0, tokens: 0, costUsd: 0 }
const topLevelPath = /^steps\[\d+\]$/

/**
 * Executes a plan run's job (a start, a resume, an answer, a takeover): commits each finished
 * top-level step (value, usage, checkpoint) before the next starts, stores every event, and
 * records how the run ended.
 */
export async function executePlan(
  context: RunContext,
  run: StoredRun,
  job: RunJob,
  attempt: number,
  active: Active,
): Promise<void> {
  const runs = context.runs
  const writer = createSerialWriter()
  const events = createEventBatcher({
    writer,
    append: async (batch) => {
      await runs.appendEvents(run.id, batch, { executedBy: context.me })
      context.notifier.notify(run.id)
    },
  })
  // Finished top-level steps not committed yet (the last step has no checkpoint after it).
  let uncommitted: Extract<RunEvent, { type: 'step-finish' }>[] = []
  // A top-level step's last event (its step-finish) is stored by the step's commit, and the
  // run's last (run-finish) by its end: a statement less each. Held until then, or until the
  // next event, which stores it first.
  let held: Record<string, unknown> | undefined
  const takeHeld = (): Record<string, unknown>[] => {
    const taken = held ? [held] : []
    held = undefined
    return taken
  }
  let checkpointed: RunState | undefined
  let fromSequence = 0
  // A write the database refused (it is away, its disk is full): the run stops there.
  let databaseFault: unknown
  const noteFault = (error: unknown) => {
    if (databaseFault === undefined && isDatabaseFault(error)) databaseFault = error
  }

  // Still `running` when a job starts: the process that ran it died (its lease expired).
  const takeover = run.status === 'running'
  const takenOver = { from: run.executedBy, by: context.me }
  const stored =
    job.kind === 'start' && !takeover ? undefined : ((run.state as RunState | null) ?? undefined)
  // An attempt that spent and died before its commit left rows the state does not count: the
  // step runs again, so both attempts are the run's spend ("at least once" costs money). It
  // goes into the state (usage, the plan's limits) or, with no checkpoint yet, is carried
  // beside it; either way the run's budget is charged with it before the run continues. A
  // run never executed before (`attempt` 0 before this claim) has no rows: nothing to read.
  const extra =
    run.attempt > 0
      ? uncountedSpend(
          await context.options.repositories.ledger.booksOfRun(run.id),
          stored ?? emptyBooks,
        )
      : emptyBooks
  const state = stored ? { ...stored, ...addBooks(stored, extra) } : undefined
  const carried = state ? emptyBooks : extra
  const before = state ? { usage: state.usage, usageByWallet: state.usageByWallet } : carried
  const budget = budgetSpent(context, run, before.usage)
  const recorder = createSpendRecorder({
    runId: run.id,
    attempt,
    ledger: context.options.repositories.ledger,
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
  if (takeover) context.options.logger.warn({ runId: run.id, ...takenOver }, 'run taken over')
  if (job.kind === 'resume' || job.kind === 'answer' || takeover) {
    // Whatever a killed process stored past its last checkpoint is replayed by this run.
    fromSequence = state?.sequence ?? 0
    await runs.dropEventsFrom(run.id, fromSequence)
  }
  context.notifier.notify(run.id)

  // Stopped at shutdown (failed at a step boundary, or cancelled by the drain): interrupted.
  const stoppedForShutdown = (status: RunStatus | string) =>
    (active.draining || context.draining) &&
    (status === 'failed' ||
      (status === 'cancelled' && active.controller.signal.reason instanceof ShutdownStop))
  const options: RunPlanOptions = {
    registry: context.options.registry,
    host: context.options.host,
    models: context.options.models,
    memory: context.options.memory,
    tools: planTools(),
    ...(context.options.discovery ? { discovery: context.options.discovery } : {}),
    ...(context.options.conclave ? { conclave: { store: context.options.conclave } } : {}),
    files: runFileStore(context.options.repositories.runFiles),
    ...(context.options.receiptSigner ? { receiptSigner: context.options.receiptSigner } : {}),
    ...(context.options.requireReceipts ? { requireReceipt: true } : {}),
    signal: active.controller.signal,
    budget,
    onEvent: (event) => {
      // A step's streamed text is live only: handed to the run's readers, never stored.
      if (event.type === 'step-delta') return context.notifier.delta(event)
      context.options.onRunEvent?.('plan', event)
      recorder.observe(event)
      if (event.type === 'step-finish' && topLevelPath.test(event.path)) uncommitted.push(event)
      // A run taken over says so in its (re-)start event.
      const stored =
        takeover && event.type === 'run-start'
          ? { ...event, takenOver }
          : event.type === 'run-finish' && stoppedForShutdown(event.status)
            ? interruptedEvent(event, context.options.handOverOnShutdown === true)
            : event
      // Any event stores the one held before it first, so events are stored in order.
      if (held) events.push(held)
      held = undefined
      if (
        event.type === 'run-finish' ||
        (event.type === 'step-finish' && topLevelPath.test(event.path))
      ) {
        held = stored as unknown as Record<string, unknown>
      } else {
        events.push(stored as unknown as Record<string, unknown>)
      }
    },
    ...(context.options.maxRunSteps === undefined
      ? {}
      : { maxRunSteps: context.options.maxRunSteps }),
    beforeStep: () => {
      // At shutdown a run stops at its next step, at any depth (a long loop is one top-level
      // step); it is resumed from its last checkpoint.
      if (active.draining || context.draining) throw new ShutdownStop()
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
      const stepEvents = takeHeld()
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
          events: stepEvents,
          state: checkpoint as unknown as Record<string, unknown>,
          usage: checkpoint.usage,
          usageByWallet: checkpoint.usageByWallet,
          executedBy: context.me,
        })
        .catch((error: unknown) => {
          noteFault(error)
          throw error
        })
      if (stepEvents.length > 0) context.notifier.notify(run.id)
      checkpointed = checkpoint
      // At shutdown a run stops at this boundary; it is resumed from this checkpoint.
      if (active.draining || context.draining) throw new ShutdownStop()
    },
  }

  let result: RunResult
  const stopRecording = recorder.listen(budget)
  try {
    if (!state) {
      // Validated as it was accepted, if that was here; else the stored copy, once per content.
      const plan = context.plans.take(run.id) ?? storedPlan(context, run.plan)
      result = await runPlan(plan, { ...options, inputs: run.inputs, runId: run.id })
    } else if (job.kind === 'answer' && state.pending !== undefined) {
      result = await resumeRun(state, job.answer, options)
    } else {
      result = await resumeRun(state, undefined, options)
    }
  } catch (error) {
    // The run ends here without its end recorded by this function: what is held is stored.
    for (const event of takeHeld()) events.push(event)
    throw error
  } finally {
    stopRecording()
    // The attempt is over: its budget's wall-limit timer would keep the budget, and all it
    // holds, alive until the deadline (ten minutes by default) after every run.
    budget.cancel('the run has ended')
  }
  await writer.flush().catch((error: unknown) => {
    noteFault(error)
    context.options.logger.error({ err: error, runId: run.id }, 'storing run events failed')
  })
  // Stopped because another process takes it over: that one records how it ends.
  throwIfLeaseLost(context, active, run.id)
  // Failed because a write was refused, not because of its plan: see `executeJob`.
  if (databaseFault !== undefined && result.status === 'failed') throw databaseFault
  const lastEvents = takeHeld()

  if (stoppedForShutdown(result.status)) {
    const last = checkpointed ?? state
    const handOver = context.options.handOverOnShutdown === true
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
      events: lastEvents,
      executedBy: context.me,
    })
    if (handOver) await context.options.queue.add({ kind: 'resume', runId: run.id })
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
    events: lastEvents,
    executedBy: context.me,
  })
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

// A stored plan that no longer validates (a lower step cap since it was accepted) is handed to
// the run as it is: the run refuses it as it always did, and fails with the reason.
function storedPlan(context: RunContext, stored: StoredRun['plan']): Plan | StoredRun['plan'] {
  try {
    return context.plans.validate(stored)
  } catch {
    return stored
  }
}
