import { randomUUID } from 'node:crypto'
import { BatonError, createModelRegistry, type ModelRegistry } from '@baton/core'
import { createDefaultHost } from '../host'
import type { Plan } from '../plan'
import type { RunServices } from './ops/step-context'
import { failurePathOf, PlanInterpreter, usageOf } from './plan-interpreter'
import { rootBudget } from './root-budget'
import type { RunEvent, RunUsage } from './run-event'
import type { RunPlanOptions, RunResult } from './run-options'
import type { RunCursor, RunState } from './run-state'

export type ExecuteRunInput = {
  plan: Plan
  inputs: Record<string, unknown>
  options: RunPlanOptions
  /** Present when continuing a paused run. */
  resume?: { state: RunState; answer: unknown }
}

/** Runs (or resumes) a validated plan to its end, a pause, a failure or a cancellation. */
export async function executeRun(input: ExecuteRunInput): Promise<RunResult> {
  const { plan, inputs, options, resume } = input
  const runId = resume?.state.runId ?? options.runId ?? randomUUID()
  const events: RunEvent[] = []
  let sequence = resume?.state.sequence ?? 0
  const emit = (body: unknown) => {
    const event = {
      ...(body as object),
      runId,
      sequence: sequence++,
      at: new Date().toISOString(),
    } as RunEvent
    events.push(event)
    try {
      options.onEvent?.(event)
    } catch {
      // A listener's failure (a closed socket, say) must not derail the run it observes.
    }
  }
  const previous = resume?.state
  const budget = rootBudget({ plan, options, ...(previous ? { previous } : {}) })
  const onCancel = () => budget.cancel('the run was cancelled')
  if (options.signal?.aborted) onCancel()
  options.signal?.addEventListener('abort', onCancel, { once: true })

  let models: ModelRegistry | undefined
  const modelsOf = () => {
    models ??= options.models ?? createModelRegistry()
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
      }),
    models: modelsOf,
    ...(options.toolRegistry ? { toolRegistry: options.toolRegistry } : {}),
    tools: options.tools ?? {},
    coordinatorWallet: options.coordinatorWallet ?? 'coordinator',
    model: options.model ?? 'offline:default',
    scratch: structuredClone(previous?.scratch ?? {}),
  }
  const values = structuredClone(previous?.values ?? {})
  const interpreter = new PlanInterpreter({
    services,
    inputs,
    emit,
    ...(resume ? { answer: { value: resume.answer } } : {}),
  })
  const usage = (): RunUsage => add(previous?.usage, usageOf(budget))
  const usageByWallet = () => mergeByWallet(previous?.usageByWallet ?? {}, budget.spentByWallet())
  const finish = (
    result: Omit<RunResult, 'runId' | 'usage' | 'usageByWallet' | 'events' | 'values'>,
  ): RunResult => {
    emit({
      type: 'run-finish',
      status: result.status,
      output: result.output,
      ...(result.reason ? { reason: result.reason } : {}),
      usage: usage(),
      ...(result.error ? { error: result.error } : {}),
    })
    return { runId, ...result, values, usage: usage(), usageByWallet: usageByWallet(), events }
  }

  emit({
    type: 'run-start',
    ...(plan.name ? { plan: plan.name } : {}),
    inputs,
    resumed: Boolean(resume),
  })
  try {
    const outcome = await interpreter.runBlock(
      plan.steps,
      { budget, values, path: 'steps' },
      previous?.cursor,
    )
    if (outcome.kind === 'pause') {
      emit({
        type: 'run-pause',
        path: outcome.path,
        saveAs: outcome.saveAs,
        question: outcome.question,
      })
      const state: RunState = {
        version: 1,
        runId,
        plan: structuredClone(plan) as unknown as Record<string, unknown>,
        inputs,
        values: structuredClone(values),
        scratch: structuredClone(services.scratch),
        cursor: outcome.cursor as RunCursor,
        pending: { path: outcome.path, saveAs: outcome.saveAs, question: outcome.question },
        usage: usage(),
        usageByWallet: usageByWallet(),
        wallMs: (previous?.wallMs ?? 0) + budget.spent().wallMs,
        // The run-finish event below takes one more number.
        sequence: sequence + 1,
      }
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
    budget.cancel('the run has finished')
  }
}

function add(a: RunUsage | undefined, b: RunUsage): RunUsage {
  if (!a) return b
  return { calls: a.calls + b.calls, tokens: a.tokens + b.tokens, costUsd: a.costUsd + b.costUsd }
}

function mergeByWallet(
  previous: Record<string, RunUsage>,
  current: Record<string, RunUsage>,
): Record<string, RunUsage> {
  const merged: Record<string, RunUsage> = { ...previous }
  for (const [wallet, usage] of Object.entries(current)) merged[wallet] = add(merged[wallet], usage)
  return merged
}
