import { BatonError, type Budget } from '@baton/core'
import { evaluateCondition } from '../condition'
import type { IfStep, LoopStep, Step } from '../plan'
import { renderTemplate, renderValue, type TemplateScope } from '../template'
import { carveBudget, stepLimits, throwIfStopped } from './carve-budget'
import { noteFailurePath } from './failure-path'
import type { BlockOutcome, Frame, StepResult } from './interpreter-types'
import { runAgentStep } from './ops/run-agent-step'
import { runConclaveStep } from './ops/run-conclave-step'
import { runModelStep } from './ops/run-model-step'
import { runSearchStep } from './ops/run-search-step'
import { runScratchStep, runToolStep } from './ops/run-tool-step'
import type { RunServices, StepContext, StepOutcome } from './ops/step-context'

export type { BlockOutcome, Frame, Pause, Stop } from './interpreter-types'

import type { RunEvent, RunUsage } from './run-event'
import { runFanout } from './run-fanout'
import { keepFiles } from './run-files'
import type { RunCursor } from './run-state'
import type { StepPacer } from './step-pacer'
import { StepTextCoalescer } from './step-text-coalescer'
import { SPENDS_NOTHING, spentSince, usageOf } from './step-usage'
import { toolCallRunEvent } from './tool-call-run-event'

/** Distributive Omit, so each event keeps its own fields. */
type EventBody = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, 'runId' | 'sequence' | 'at'>
    : never
  : never

export type InterpreterOptions = {
  services: RunServices
  inputs: Record<string, unknown>
  emit: (event: EventBody) => void
  /** The answer to the `ask_user` a resumed run stopped at. */
  answer?: { value: unknown }
  /** Awaited (when it gives a promise) before each step starts: a slow event reader's brake. */
  beforeStep?: () => Promise<void> | undefined
  /** Counts the run's steps against its cap and gives the event loop its turns. */
  pacer?: StepPacer
  /** Model and agent steps stream their text as `step-delta` events (default true). */
  stepDeltas?: boolean
  /**
   * Whether anyone hears the events a step would emit now (default: always). A step nobody
   * hears makes its model calls whole: a stream costs many promises and objects per call.
   */
  listening?: () => boolean
}

/** How a top-level block is run: from which step, and what follows each finished step. */
export type BlockControl = {
  /** The first step to run (a checkpoint's cursor); the steps before it are done. */
  start?: number
  /** Awaited after each step that finished without ending the block. */
  afterStep?: (index: number) => Promise<void>
}

// Ops whose model text is streamed as `step-delta` events.
const WRITES_TEXT = new Set<string>(['task', 'delegate', 'models_call', 'synthesize'])

/** Runs blocks of steps; control flow (if, loop, fanout, ask_user, stop) lives here. */
export class PlanInterpreter {
  readonly #options: InterpreterOptions
  #answer: { value: unknown } | undefined

  constructor(options: InterpreterOptions) {
    this.#options = options
    this.#answer = options.answer
  }

  async runBlock(
    steps: Step[],
    frame: Frame,
    resume?: RunCursor,
    control?: BlockControl,
  ): Promise<BlockOutcome> {
    let last: unknown = null
    const { beforeStep, pacer } = this.#options
    for (let index = resume?.index ?? control?.start ?? 0; index < steps.length; index++) {
      const step = steps[index]!
      const path = `${frame.path}[${index}]`
      try {
        const turn = pacer?.beforeStep(path)
        if (turn) await turn
        const brake = beforeStep?.()
        if (brake) await brake
      } catch (error) {
        // Refused before it started (the step cap, a brake that gave up): it is that step's failure.
        noteFailurePath(error, path)
        throw error
      }
      // Made field by field: a spread per step costs more than the frame's few fields.
      const stepFrame: Frame = { budget: frame.budget, values: frame.values, path }
      if (frame.iteration !== undefined) stepFrame.iteration = frame.iteration
      const result = await this.#runStep(
        step,
        stepFrame,
        index === resume?.index ? resume : undefined,
      )
      if (result.kind === 'pause') return { ...result, cursor: { ...result.cursor, index } }
      if (result.kind === 'stop') return result
      if ('saveAs' in step && step.saveAs !== undefined) last = frame.values[step.saveAs] ?? null
      if (control?.afterStep) await control.afterStep(index)
    }
    return { kind: 'next', last }
  }

  async #runStep(step: Step, frame: Frame, resume?: RunCursor): Promise<StepResult> {
    const { emit } = this.#options
    const path = frame.path
    const saveAs = 'saveAs' in step ? step.saveAs : undefined
    const where: StepWhere = { path, op: step.op }
    if (saveAs !== undefined) where.saveAs = saveAs
    if (frame.iteration !== undefined) where.iteration = frame.iteration
    const coordinator = this.#options.services.coordinatorWallet
    let wallet: string | undefined
    if (step.op === 'task' || step.op === 'delegate') {
      wallet = step.agentWallet.includes('{{') ? undefined : step.agentWallet
    }
    // A resumed container (or the answered ask_user) already announced itself before the pause.
    if (!resume) {
      const start = stepEvent('step-start', where)
      if (wallet) start.wallet = wallet
      emit(start as EventBody)
    }
    const started = Date.now()
    const { stepDeltas, listening } = this.#options
    const text =
      stepDeltas !== false && WRITES_TEXT.has(step.op) && (listening?.() ?? true)
        ? new StepTextCoalescer({
            now: started,
            send: (chunk) =>
              emit({ type: 'step-delta', ...where, wallet: wallet ?? coordinator, text: chunk }),
          })
        : undefined
    let budget: Budget | undefined
    let borrowed = false
    // A step with no limits of its own runs on its block's budget: steps of a block run one
    // after another, so what the block spent during the step is the step's usage. No child
    // per step is made, which would also be capped by what was left when it was made.
    const limits = stepLimits(step)
    const shared = limits === undefined
    const spentBefore = shared && !SPENDS_NOTHING.has(step.op) ? frame.budget.spent() : undefined
    try {
      if (shared) {
        // As a child of it would be refused: a cancelled or timed-out block runs no more steps.
        throwIfStopped(frame.budget)
        budget = frame.budget
      } else {
        const carved = carveBudget(frame.budget, limits, path)
        budget = carved.budget
        borrowed = carved.borrowed
      }
      const scope: TemplateScope = { inputs: this.#options.inputs, values: frame.values }
      // One object per step, the step in it: each op's runner reads the fields it needs.
      const context: StepContext<Step> = {
        step,
        path,
        budget,
        scope,
        services: this.#options.services,
      }
      if (text) context.onText = (chunk: string) => text.push(chunk)
      let outcome: StepOutcome
      let result: StepResult = NEXT
      switch (step.op) {
        case 'task':
        case 'delegate':
          context.onToolCall = (event) => emit(toolCallRunEvent(where, event))
          if (this.#options.services.files) {
            context.onFiles = keepFiles(this.#options.services.files, where, emit)
          }
          outcome = await runAgentStep(context as StepContext<typeof step>, (agent) => {
            wallet = agent.wallet
          })
          break
        case 'models_call':
        case 'synthesize':
          outcome = await runModelStep(context as StepContext<typeof step>)
          break
        case 'tool':
          outcome = await runToolStep(context as StepContext<typeof step>)
          break
        case 'scratch':
          outcome = runScratchStep(context as StepContext<typeof step>)
          break
        case 'search_agents':
        case 'search_tools':
        case 'search_models':
          outcome = await runSearchStep(context as StepContext<typeof step>)
          break
        case 'conclave':
          outcome = await runConclaveStep(context as StepContext<typeof step>)
          break
        case 'ask_user': {
          if (!resume) {
            const question = renderTemplate(step.question, scope)
            return { kind: 'pause', cursor: {}, path, saveAs: step.saveAs, question }
          }
          outcome = { value: this.#answer?.value ?? null, wallet: coordinator }
          this.#answer = undefined
          break
        }
        case 'stop': {
          const output = renderValue(step.output, scope)
          outcome = { value: output, wallet: coordinator }
          result = { kind: 'stop', output, ...(step.reason ? { reason: step.reason } : {}) }
          break
        }
        case 'if': {
          const branch = await this.#runIf(step, { ...frame, budget }, scope, resume)
          if (branch.result.kind === 'pause') return branch.result
          outcome = { value: { branch: branch.taken }, wallet: coordinator }
          result = branch.result
          break
        }
        case 'loop': {
          const loop = await this.#runLoop(step, { ...frame, budget }, scope, resume)
          if (loop.result.kind === 'pause') return loop.result
          outcome = { value: { iterations: loop.iterations }, wallet: coordinator }
          result = loop.result
          break
        }
        case 'fanout':
          outcome = {
            value: await runFanout({
              step,
              frame: { ...frame, budget },
              runBlock: (steps, branchFrame) => this.runBlock(steps, branchFrame),
            }),
            wallet: coordinator,
          }
          break
      }
      if (saveAs !== undefined) frame.values[saveAs] = outcome.value
      text?.finish()
      const finish = stepEvent('step-finish', where)
      finish.value = outcome.value
      finish.usage = stepUsage(frame.budget, spentBefore, shared || borrowed ? undefined : budget)
      finish.wallet = outcome.wallet
      finish.durationMs = Date.now() - started
      if (text?.firstTextMs !== undefined) finish.firstTextMs = text.firstTextMs
      emit(finish as EventBody)
      return result
    } catch (error) {
      noteFailurePath(error, path)
      text?.finish()
      emit({
        type: 'step-error',
        ...where,
        code: BatonError.isInstance(error) ? error.code : 'STEP_FAILED',
        message: BatonError.isInstance(error)
          ? error.shortMessage
          : error instanceof Error
            ? error.message
            : String(error),
        usage: stepUsage(frame.budget, spentBefore, shared || borrowed ? undefined : budget),
        ...(wallet ? { wallet } : {}),
      })
      throw error
    }
  }

  async #runIf(step: IfStep, frame: Frame, scope: TemplateScope, resume?: RunCursor) {
    const taken = resume?.branch ?? (evaluateCondition(step.cond, scope) ? 'then' : 'else')
    const block = (taken === 'then' ? step.then : step.else) ?? []
    const outcome = await this.runBlock(
      block,
      { ...frame, path: `${frame.path}.${taken}` },
      resume?.inner,
    )
    const result: StepResult =
      outcome.kind === 'pause'
        ? { ...outcome, cursor: { branch: taken, inner: outcome.cursor } }
        : outcome.kind === 'stop'
          ? outcome
          : { kind: 'next' }
    return { taken, result }
  }

  async #runLoop(step: LoopStep, frame: Frame, scope: TemplateScope, resume?: RunCursor) {
    let iterations = resume?.iteration ? resume.iteration - 1 : 0
    let inner = resume?.inner
    while (iterations < step.maxIters) {
      // A resumed iteration is already under way: its condition was checked before the pause.
      if (!inner && !evaluateCondition(step.while, scope)) break
      iterations += 1
      const outcome = await this.runBlock(
        step.do,
        { ...frame, path: `${frame.path}.do`, iteration: iterations },
        inner,
      )
      inner = undefined
      if (outcome.kind === 'pause') {
        const result: StepResult = {
          ...outcome,
          cursor: { iteration: iterations, inner: outcome.cursor },
        }
        return { iterations, result }
      }
      if (outcome.kind === 'stop') return { iterations, result: outcome as StepResult }
    }
    return { iterations, result: { kind: 'next' } as StepResult }
  }
}

/** The fields every event of a step starts with. */
type StepWhere = { path: string; op: string; saveAs?: string; iteration?: number }

// A step that goes on to the next: one object, read and never changed.
const NEXT: StepResult = Object.freeze({ kind: 'next' })

/**
 * A step's usage: what its block's budget spent since `before` when it ran on that budget,
 * else what its own budget spent (nothing when it had none).
 */
function stepUsage(block: Budget, before: RunUsage | undefined, own: Budget | undefined): RunUsage {
  return before ? spentSince(block, before) : usageOf(own)
}

/**
 * A step's event of `type`, its fields set one by one in the order a spread of `where` gives
 * them (a spread per event costs more than the event's own fields).
 */
function stepEvent(type: string, where: StepWhere): Record<string, unknown> {
  const event: Record<string, unknown> = { type, path: where.path, op: where.op }
  if (where.saveAs !== undefined) event.saveAs = where.saveAs
  if (where.iteration !== undefined) event.iteration = where.iteration
  return event
}
