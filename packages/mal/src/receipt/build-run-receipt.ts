import {
  hashJson,
  type ReceiptStep,
  type ReceiptToolCall,
  type RunReceiptContent,
} from '@baton/core'
import type { Plan } from '../plan'
import { roundUsd } from '../round-usd'
import type { RunEvent, RunUsage } from '../run/run-event'
import { stepAt } from './step-at'
import { stepInputHash } from './step-input-hash'

export type BuildRunReceiptInput = {
  /** The validated plan, as the run was given it. */
  plan: Plan
  inputs: Record<string, unknown>
  /** Every event of the run, in order, from `run-start` to `run-finish`. */
  events: readonly RunEvent[]
  /** Usage by wallet as the run's budget attributed it (default: summed from leaf steps). */
  usageByWallet?: Record<string, RunUsage>
  /** Default: the `run-finish` event's time. */
  issuedAt?: string
}

const CONTAINERS = new Set(['fanout', 'if', 'loop'])
const zero = (): RunUsage => ({ calls: 0, tokens: 0, costUsd: 0 })

/**
 * The content of a run's receipt (unsigned; see core's `signRunReceipt`) from its plan,
 * inputs and event stream: a run that failed or was cancelled gets a receipt of what happened,
 * with the failed step and the steps that never finished marked so.
 *
 * @example
 * const content = buildRunReceipt({ plan, inputs, events })
 * const receipt = await signRunReceipt(content, runtimeAccount)
 */
export function buildRunReceipt(input: BuildRunReceiptInput): RunReceiptContent {
  const { plan, inputs, events } = input
  const values: Record<string, unknown> = {}
  const steps: ReceiptStep[] = []
  const open = new Map<string, ReceiptStep[]>()
  const keyOf = (event: { path: string; iteration?: number | undefined }) =>
    `${event.path}#${event.iteration ?? 0}`
  let finish: Extract<RunEvent, { type: 'run-finish' }> | undefined
  // Tool calls not answered yet, by step and call id.
  const calls = new Map<string, ReceiptToolCall>()
  const opened = (event: Extract<RunEvent, { type: 'step-start' }>) => {
    const step: ReceiptStep = {
      path: event.path,
      op: event.op,
      ...(event.saveAs === undefined ? {} : { saveAs: event.saveAs }),
      ...(event.iteration === undefined ? {} : { iteration: event.iteration }),
      ...(event.wallet === undefined ? {} : { agentWallet: event.wallet }),
      inputHash: stepInputHash(stepAt(plan, event.path), { inputs, values }),
      outputHash: hashJson(null),
      usage: zero(),
      status: 'unfinished',
      startedAt: event.at,
      finishedAt: null,
    }
    steps.push(step)
    const stack = open.get(keyOf(event)) ?? []
    stack.push(step)
    open.set(keyOf(event), stack)
    return step
  }
  for (const event of events) {
    switch (event.type) {
      case 'step-start':
        opened(event)
        break
      case 'step-finish':
      case 'step-error': {
        // A resumed container announced itself before the pause, in an earlier stream.
        const step =
          open.get(keyOf(event))?.pop() ??
          opened({ ...event, type: 'step-start', wallet: event.wallet })
        step.status = event.type === 'step-finish' ? 'done' : 'failed'
        step.usage = { ...event.usage }
        step.finishedAt = event.at
        if (event.wallet !== undefined) step.agentWallet = event.wallet
        if (event.type === 'step-finish') {
          step.outputHash = hashJson(event.value)
          if (event.saveAs !== undefined) values[event.saveAs] = event.value
        }
        break
      }
      case 'tool-call':
      case 'tool-result':
        recordToolCall(open.get(keyOf(event))?.at(-1), event, calls)
        break
      case 'run-finish':
        finish = event
        break
      default:
        break
    }
  }
  const runId = events[0]?.runId ?? finish?.runId ?? ''
  return {
    schemaVersion: 1,
    runId,
    planHash: hashJson(plan),
    inputsHash: hashJson(inputs),
    steps,
    usage: finish ? { ...finish.usage } : sumUsage(steps),
    usageByWallet: input.usageByWallet ?? usageByLeafWallet(steps),
    status: finish?.status ?? 'failed',
    outputHash: hashJson(finish?.output ?? null),
    ...(finish?.error ? { error: { ...finish.error } } : {}),
    issuedAt: input.issuedAt ?? finish?.at ?? new Date().toISOString(),
  }
}

type ToolEvent = Extract<RunEvent, { type: 'tool-call' | 'tool-result' }>

/** Adds a `tool-call` to its step's record, or settles it with its `tool-result`. */
function recordToolCall(
  step: ReceiptStep | undefined,
  event: ToolEvent,
  calls: Map<string, ReceiptToolCall>,
): void {
  if (!step) return
  // Sub-agents of a task may number their calls alike: the wallet tells them apart.
  const key = `${step.path}#${step.startedAt}#${event.wallet}#${event.toolCallId}`
  if (event.type === 'tool-call') {
    const call: ReceiptToolCall = {
      name: event.name,
      tool: event.tool,
      ...(event.server === undefined ? {} : { server: event.server }),
      wallet: event.wallet,
      inputHash: event.inputHash,
      status: 'unfinished',
    }
    step.toolCalls = [...(step.toolCalls ?? []), call]
    calls.set(key, call)
    return
  }
  const call = calls.get(key)
  if (!call) return
  calls.delete(key)
  call.status = event.error ? 'failed' : 'done'
  call.durationMs = event.durationMs
  if (event.error) call.errorCode = event.error.code
}

function add(into: RunUsage, usage: RunUsage): RunUsage {
  return {
    calls: into.calls + usage.calls,
    tokens: into.tokens + usage.tokens,
    costUsd: roundUsd(into.costUsd + usage.costUsd),
  }
}

function sumUsage(steps: ReceiptStep[]): RunUsage {
  // Top-level steps run one after another on the run's budget: their usage adds up to the run's.
  return steps
    .filter((step) => !step.path.includes('.'))
    .reduce((total, step) => add(total, step.usage), zero())
}

// Containers' usage is their children's: only leaf steps are attributed, so nothing counts twice.
function usageByLeafWallet(steps: ReceiptStep[]): Record<string, RunUsage> {
  const byWallet: Record<string, RunUsage> = {}
  for (const step of steps) {
    if (CONTAINERS.has(step.op) || step.agentWallet === undefined) continue
    byWallet[step.agentWallet] = add(byWallet[step.agentWallet] ?? zero(), step.usage)
  }
  return byWallet
}
