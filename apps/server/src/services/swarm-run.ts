import type { AgentSwarm, ChargeEvent } from '@baton/core'
import { runSwarm, type SwarmEvent, type SwarmJournal } from '@baton/mal'
import type { StoredRun } from '../db/runs-repository'
import { isTakenOver } from '../scale/is-taken-over'
import { addBooks } from './add-books'
import { budgetSpent } from './run-budget'
import { type Active, type RunContext, throwIfLeaseLost } from './run-context'
import { createSerialWriter } from './serial-writer'
import { createSpendRecorder } from './spend-recorder'
import { swarmDelta } from './swarm-delta'
import { uncountedSpend } from './uncounted-spend'

/**
 * Executes a swarm run's job: from its beginning, answering from its journal the member calls
 * an earlier attempt finished, and records how the run ended.
 */
export async function executeSwarm(
  context: RunContext,
  run: StoredRun,
  attempt: number,
  active: Active,
): Promise<void> {
  const runs = context.runs
  const writer = createSerialWriter()
  let sequence = 0
  const takenOver = run.status === 'running' ? { from: run.executedBy, by: context.me } : undefined
  // A run executed before (taken over, resumed) may have left events: it starts again.
  if (run.attempt > 0) await runs.dropEventsFrom(run.id, 0)
  // A swarm has no checkpoints but a journal: an attempt that died (or was stopped) is run
  // again from the beginning, and every member call it finished is answered from the journal
  // (no model call, no charge); the calls it had not finished run again. What it spent is the
  // run's all the same: its rows are on the ledger past what the run's record counts, and go
  // into this attempt's books and budget, so a replayed call is counted once.
  const stored = { usage: run.usage, usageByWallet: run.usageByWallet }
  // A run never executed before has nothing on the ledger: its books are not read.
  const before =
    run.attempt > 0
      ? addBooks(
          stored,
          uncountedSpend(await context.options.repositories.ledger.booksOfRun(run.id), stored),
        )
      : stored
  const budget = budgetSpent(context, run, before.usage)
  const recorder = createSpendRecorder({
    runId: run.id,
    attempt,
    ledger: context.options.repositories.ledger,
    writer,
    before,
    stepOf: swarmMemberStep(run.id),
  })
  active.books = recorder.books
  active.flushSpend = () => writer.flush()
  const journal = await swarmJournal(context, run.id, attempt, writer)
  if (takenOver) context.options.logger.warn({ runId: run.id, ...takenOver }, 'run taken over')
  const agents = context.options.repositories.agents
  const stopRecording = recorder.listen(budget)
  const result = await runSwarm(run.plan as unknown as AgentSwarm, String(run.inputs.task ?? ''), {
    agents: async (agentId) => agents.findById(agentId),
    models: context.options.models,
    signal: active.controller.signal,
    runId: run.id,
    ...(context.options.conclave ? { conclave: { store: context.options.conclave } } : {}),
    budget,
    journal,
    onEvent: (event: SwarmEvent) => {
      // A member's streamed text is live only, like a plan step's: after the last stored event.
      if (event.type === 'step-delta') return context.notifier.delta(swarmDelta(event, sequence))
      context.options.onRunEvent?.('swarm', event)
      const stored = {
        ...event,
        ...(sequence === 0 && takenOver ? { takenOver } : {}),
        sequence: sequence++,
        at: new Date().toISOString(),
      }
      writer.write(async () => {
        await runs.appendEvents(run.id, [stored], { executedBy: context.me })
        context.notifier.notify(run.id)
      })
    },
  })
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
      writer.write(() => runs.appendEvents(run.id, [stored], { executedBy: context.me }))
      return undefined
    })
    .finally(() => {
      stopRecording()
      // The attempt is over: see plan-run's.
      budget.cancel('the run has ended')
    })
  // The ledger rows were written as each member call was charged; the finish writes none.
  await writer.flush().catch((error: unknown) => {
    context.options.logger.error({ err: error, runId: run.id }, 'storing swarm events failed')
  })
  // Stopped because another process takes it over: that one records how it ends.
  throwIfLeaseLost(context, active, run.id)
  const books = recorder.books()
  const interrupted = (active.draining || context.draining) && result?.status === 'cancelled'
  const handOver = interrupted && context.options.handOverOnShutdown === true
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
    executedBy: context.me,
  })
  if (handOver) await context.options.queue.add({ kind: 'swarm', runId: run.id })
}

/**
 * The swarm run's journal as this attempt starts: the calls earlier attempts finished, read
 * once, and each call this attempt finishes written (fenced: only while this process holds
 * the run) before mal uses its answer. The call's ledger rows are written before its entry,
 * so a recorded call's spend is always on the books.
 */
async function swarmJournal(
  context: RunContext,
  runId: string,
  attempt: number,
  writer: ReturnType<typeof createSerialWriter>,
): Promise<SwarmJournal> {
  const repository = context.options.repositories.swarmJournal
  const recorded = new Map((await repository.callsOfRun(runId)).map((call) => [call.key, call]))
  return {
    recorded: (key) => recorded.get(key),
    record: async (key, entry) => {
      await writer.flush().catch((error: unknown) => {
        if (isTakenOver(error)) throw error
        context.options.logger.error({ err: error, runId }, 'storing swarm events failed')
      })
      await repository.record({ runId, key, entry, attempt, executedBy: context.me })
    },
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
