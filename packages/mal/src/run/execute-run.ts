import { randomUUID } from 'node:crypto'
import { BatonError, type Budget, defaultModelRegistry, type ModelRegistry } from '@baton/core'
import { processConclave } from '../conclave/process-conclave'
import { createDefaultHost } from '../host'
import type { Plan } from '../plan'
import { roundUsd } from '../round-usd'
import { withWorkflowSpan } from '../telemetry/workflow-span'
import { EventLog } from './event-log'
import { failurePathOf } from './failure-path'
import { isoNow } from './iso-now'
import type { RunServices } from './ops/step-context'
import { PlanInterpreter } from './plan-interpreter'
import { rootBudget } from './root-budget'
import { CheckpointError } from './run-errors'
import type { RunEvent, RunUsage } from './run-event'
import type { RunEventChannel } from './run-event-channel'
import type { RunPlanOptions, RunResult } from './run-options'
import type { RunCursor, RunState } from './run-state'
import { sealState } from './seal-state'
import { StepPacer } from './step-pacer'
import { usageOf } from './step-usage'
import { ToolBatchLimit } from './tool-batches/tool-batch-limit'

export type ExecuteRunInput = {
  plan: Plan
  inputs: Record<string, unknown>
  options: RunPlanOptions
  runId: string
  /** Where `run.events` goes (see `startRun`). */
  channel?: RunEventChannel
  /** Present when continuing a paused run (with its answer) or a checkpoint (without). */
  resume?: { state: RunState; answer?: { value: unknown } }
}

/** Runs (or resumes) a validated plan to its end, a pause, a failure or a cancellation. */
export function executeRun(input: ExecuteRunInput): Promise<RunResult> {
  const { plan, runId, resume } = input
  const name = plan.name ?? 'plan'
  return withWorkflowSpan({ name, runId, kind: 'plan', resumed: Boolean(resume) }, () =>
    executeRunInSpan(input),
  )
}

async function executeRunInSpan(input: ExecuteRunInput): Promise<RunResult> {
  const { plan, inputs, options, resume, runId, channel } = input
  const log = new EventLog(options.maxEvents)
  let sequence = resume?.state.sequence ?? 0
  const emit = (body: unknown) => {
    // A step's streamed text is live only: it takes no number (it shares that of the event
    // before it) and is not kept in the result's events.
    const live = (body as { type: string }).type === 'step-delta'
    // The interpreter hands over a fresh object per event: completing it in place saves a copy.
    const event = body as RunEvent
    event.runId = runId
    event.sequence = live ? Math.max(0, sequence - 1) : sequence++
    event.at = isoNow()
    if (!live) log.push(event)
    channel?.push(event)
    try {
      options.onEvent?.(event)
    } catch {
      // A listener's failure (a closed socket, say) must not derail the run it observes.
    }
  }
  const previous = resume?.state

  let models: ModelRegistry | undefined
  const modelsOf = () => {
    // The host's registry of the built-in providers, as a `delegate` to an agent uses: made once.
    models ??= options.models ?? defaultModelRegistry()
    return models
  }
  const services: RunServices = {
    registry: options.registry,
    host:
      options.host ??
      createDefaultHost({
        ...(options.models ? { models: options.models } : {}),
        ...(options.toolRegistry ? { toolRegistry: options.toolRegistry } : {}),
        ...(options.memory ? { memory: options.memory } : {}),
        ...(options.workspaceRoot ? { workspaceRoot: options.workspaceRoot } : {}),
        ...(options.workspaceProviders ? { workspaceProviders: options.workspaceProviders } : {}),
      }),
    models: modelsOf,
    ...(options.toolRegistry ? { toolRegistry: options.toolRegistry } : {}),
    tools: options.tools ?? {},
    ...(options.discovery ? { discovery: options.discovery } : {}),
    ...(plan.maxDepth === undefined ? {} : { maxDepth: plan.maxDepth }),
    ...(plan.maxToolBatches === undefined
      ? {}
      : { toolBatches: new ToolBatchLimit(plan.maxToolBatches) }),
    conclave: {
      store: options.conclave?.store ?? processConclave(),
      space: options.conclave?.space ?? runId,
    },
    ...(options.files ? { files: { runId, store: options.files } } : {}),
    coordinatorWallet: options.coordinatorWallet ?? 'coordinator',
    model: options.model ?? 'offline:default',
    scratch: copyRecord(previous?.scratch),
  }
  const values = copyRecord(previous?.values)
  const pacer = new StepPacer({
    ...(options.maxRunSteps === undefined ? {} : { maxSteps: options.maxRunSteps }),
    ...(previous?.stepsRun === undefined ? {} : { stepsBefore: previous.stepsRun }),
  })
  const beforeStep = brakes(options.beforeStep, channel)
  const interpreter = new PlanInterpreter({
    services,
    inputs,
    emit,
    pacer,
    ...(options.stepDeltas === false ? { stepDeltas: false } : {}),
    // A step streams only for a listener: `onEvent`, or a reader of `run.events`.
    listening: options.onEvent ? () => true : () => channel?.listening === true,
    ...(beforeStep ? { beforeStep } : {}),
    ...(resume?.answer ? { answer: resume.answer } : {}),
  })
  let budget: Budget | undefined
  const usage = (): RunUsage => add(previous?.usage, usageOf(budget))
  const usageByWallet = () =>
    mergeByWallet(previous?.usageByWallet ?? {}, budget?.spentByWallet() ?? {})
  let planJson: Record<string, unknown> | undefined
  const stateAt = (cursor: RunCursor, pending?: RunState['pending'], next = sequence): RunState => {
    // One copy of the plan serves every state of the run: states are data, never mutated.
    planJson ??= structuredClone(plan) as unknown as Record<string, unknown>
    const state: RunState = {
      version: 1,
      runId,
      stateId: randomUUID(),
      plan: planJson,
      inputs,
      values: structuredClone(values),
      scratch: structuredClone(services.scratch),
      cursor,
      ...(pending ? { pending } : {}),
      usage: usage(),
      usageByWallet: usageByWallet(),
      wallMs: (previous?.wallMs ?? 0) + (budget?.spent().wallMs ?? 0),
      sequence: next,
      stepsRun: pacer.steps,
    }
    return options.secret === undefined ? state : sealState(state, options.secret)
  }
  const finish = (
    result: Omit<
      RunResult,
      'runId' | 'usage' | 'usageByWallet' | 'events' | 'values' | 'eventsDropped'
    >,
  ): RunResult => {
    emit({
      type: 'run-finish',
      status: result.status,
      output: result.output,
      ...(result.reason ? { reason: result.reason } : {}),
      usage: usage(),
      ...(result.error ? { error: result.error } : {}),
    })
    return {
      runId,
      ...result,
      values,
      usage: usage(),
      usageByWallet: usageByWallet(),
      events: log.events(),
      ...(log.dropped > 0 ? { eventsDropped: log.dropped } : {}),
    }
  }
  const onCancel = () => budget?.cancel('the run was cancelled')
  const { onCheckpoint } = options
  const afterStep = onCheckpoint
    ? async (index: number) => {
        const checkpoint = stateAt({ index: index + 1 })
        try {
          await onCheckpoint(checkpoint)
        } catch (error) {
          throw new CheckpointError({ index, cause: error })
        }
      }
    : undefined

  emit({
    type: 'run-start',
    ...(plan.name ? { plan: plan.name } : {}),
    inputs,
    resumed: Boolean(resume),
  })
  try {
    // Inside the try: a caller's budget that is already spent is a failed run, not a throw.
    budget = rootBudget({ plan, options, ...(previous ? { previous } : {}) })
    if (options.signal?.aborted) onCancel()
    options.signal?.addEventListener('abort', onCancel, { once: true })
    const paused = previous?.pending !== undefined
    const outcome = await interpreter.runBlock(
      plan.steps,
      { budget, values, path: 'steps' },
      paused ? previous.cursor : undefined,
      {
        ...(previous && !paused ? { start: previous.cursor.index } : {}),
        ...(afterStep ? { afterStep } : {}),
      },
    )
    if (outcome.kind === 'pause') {
      emit({
        type: 'run-pause',
        path: outcome.path,
        saveAs: outcome.saveAs,
        question: outcome.question,
      })
      const pending = { path: outcome.path, saveAs: outcome.saveAs, question: outcome.question }
      // The run-finish event below takes one more number.
      const state = stateAt(outcome.cursor as RunCursor, pending, sequence + 1)
      return finish({ status: 'paused', output: null, state, question: outcome.question })
    }
    if (outcome.kind === 'stop') {
      return finish({
        status: outcome.reason ? 'stopped' : 'done',
        output: outcome.output,
        ...(outcome.reason ? { reason: outcome.reason } : {}),
      })
    }
    return finish({ status: 'done', output: null })
  } catch (error) {
    const cancelled = options.signal?.aborted === true
    const path = failurePathOf(error)
    return finish({
      status: cancelled ? 'cancelled' : 'failed',
      output: null,
      error: {
        code: BatonError.isInstance(error) ? error.code : 'RUN_FAILED',
        message: BatonError.isInstance(error)
          ? error.shortMessage
          : error instanceof Error
            ? error.message
            : String(error),
        ...(path ? { path } : {}),
      },
    })
  } finally {
    options.signal?.removeEventListener('abort', onCancel)
    // Nothing may be charged to a finished run; this also stops its wall-clock timer.
    budget?.cancel('the run has finished')
  }
}

// The caller's brake and the event stream's, as one: both must let the next step start.
function brakes(
  own: RunPlanOptions['beforeStep'],
  channel: RunEventChannel | undefined,
): (() => Promise<void> | undefined) | undefined {
  if (!own && !channel) return undefined
  return () => {
    const mine = own?.() || undefined
    const room = channel?.room()
    if (mine && room) return Promise.all([mine, room]).then(() => undefined)
    return mine ?? room
  }
}

// A null-prototype copy, so a saved key like `__proto__` is a key like any other.
function copyRecord(record: Record<string, unknown> | undefined): Record<string, unknown> {
  const copy = Object.create(null) as Record<string, unknown>
  if (record) for (const key of Object.keys(record)) copy[key] = structuredClone(record[key])
  return copy
}

function add(a: RunUsage | undefined, b: RunUsage): RunUsage {
  if (!a) return b
  return {
    calls: a.calls + b.calls,
    tokens: a.tokens + b.tokens,
    costUsd: roundUsd(a.costUsd + b.costUsd),
  }
}

function mergeByWallet(
  previous: Record<string, RunUsage>,
  current: Record<string, RunUsage>,
): Record<string, RunUsage> {
  const merged: Record<string, RunUsage> = { ...previous }
  for (const [wallet, usage] of Object.entries(current)) merged[wallet] = add(merged[wallet], usage)
  return merged
}
