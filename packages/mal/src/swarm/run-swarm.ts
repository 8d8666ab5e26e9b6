import { randomUUID } from 'node:crypto'
import { type AgentSwarm, type AgentSwarmInput, BatonError, createBudget } from '@baton/core'
import type { Span } from '@opentelemetry/api'
import { createMemoryConclave } from '../conclave/create-memory-conclave'
import { recordSwarmEvent } from '../telemetry/swarm-span-events'
import { withWorkflowSpan } from '../telemetry/workflow-span'
import { createDefaultRunMember } from './default-run-member'
import { type PreparedSwarm, prepareSwarm } from './prepare-swarm'
import { runAdaptive, type Strategies } from './run-adaptive'
import { runCollaborative } from './run-collaborative'
import { runCompetitive } from './run-competitive'
import { runDemocratic } from './run-democratic'
import { runHierarchical } from './run-hierarchical'
import { runRoundRobin } from './run-round-robin'
import { runSpecialist } from './run-specialist'
import type { StrategyOutcome } from './strategy-outcome'
import { SwarmSession } from './swarm-session'
import type { RunSwarmOptions, SwarmEvent, SwarmRunResult, SwarmRunStatus } from './types'

const chosen: Strategies = {
  hierarchical: runHierarchical,
  democratic: runDemocratic,
  specialist: runSpecialist,
  'round-robin': runRoundRobin,
  competitive: runCompetitive,
  collaborative: runCollaborative,
}
const strategies: Record<
  AgentSwarm['strategy'],
  (session: SwarmSession) => Promise<StrategyOutcome>
> = { ...chosen, adaptive: (session) => runAdaptive(session, chosen) }

/**
 * Runs a swarm on a task under its strategy and returns what happened, round by round.
 * An invalid swarm or a member id with no agent rejects before anything runs; once the run
 * has started it resolves, with `status: 'failed'` or `'cancelled'` if it could not finish.
 *
 * @example
 * const result = await runSwarm(swarm, 'Summarize the incident report', {
 *   agents,
 *   budget: createBudget({ calls: 20, cost: 0.5 }),
 *   onEvent: (event) => console.log(event.type),
 * })
 * console.log(result.status, result.output, result.usageByAgent)
 */
export async function runSwarm(
  swarm: AgentSwarm | AgentSwarmInput,
  input: string,
  options: RunSwarmOptions,
): Promise<SwarmRunResult> {
  const prepared = await prepareSwarm(swarm, options.agents)
  return executeSwarm(prepared, input, options)
}

/**
 * Runs a swarm that `prepareSwarm` has validated; never rejects (failures become the result's
 * `status` and `error`). The in-process runner uses it to validate before it creates a run.
 *
 * @example
 * const prepared = await prepareSwarm(swarm, agents)
 * const result = await executeSwarm(prepared, 'Plan the launch', { runId: 'run-1' })
 */
export function executeSwarm(
  prepared: PreparedSwarm,
  task: string,
  options: Omit<RunSwarmOptions, 'agents'>,
): Promise<SwarmRunResult> {
  const { swarm } = prepared
  const runId = options.runId ?? `swarm-run-${randomUUID()}`
  const attributes = { 'baton.swarm.id': swarm.id, 'baton.swarm.strategy': swarm.strategy }
  return withWorkflowSpan({ name: swarm.name, runId, kind: 'swarm', attributes }, (span) =>
    executeSwarmInSpan(prepared, task, { ...options, runId }, span),
  )
}

async function executeSwarmInSpan(
  prepared: PreparedSwarm,
  task: string,
  options: Omit<RunSwarmOptions, 'agents'> & { runId: string },
  span: Span,
): Promise<SwarmRunResult> {
  const { swarm, members } = prepared
  const { runId } = options
  const recording = span.isRecording()
  const emit = (event: SwarmEvent) => {
    if (recording) recordSwarmEvent(span, event)
    try {
      options.onEvent?.(event)
    } catch {
      // A listener's bug must not change the outcome of the run it watches.
    }
  }
  const signal = options.signal ?? new AbortController().signal
  const session = new SwarmSession({
    runId,
    swarm,
    members,
    task,
    budget: options.budget ?? createBudget({}, { name: runId }),
    signal,
    runMember:
      options.runMember ??
      createDefaultRunMember({
        ...(options.models ? { models: options.models } : {}),
        ...(options.toolRegistry ? { toolRegistry: options.toolRegistry } : {}),
        ...(options.unprovidedTools ? { unprovidedTools: options.unprovidedTools } : {}),
      }),
    onEvent: emit,
    conclave: {
      store: options.conclave?.store ?? createMemoryConclave(),
      space: options.conclave?.space ?? runId,
    },
    ...(options.journal ? { journal: options.journal } : {}),
    // Streamed only for someone to read: without a listener each call is made whole.
    streams: options.stepDeltas !== false && options.onEvent !== undefined,
  })
  // Replayed answers rebuild the run's own keyspace as the first execution built it; what an
  // execution that died left there would make the prompts differ (and the calls run again).
  if (options.journal && options.conclave?.space === undefined) {
    await session.conclave.store.expire(runId, 0).catch(() => undefined)
  }
  session.emit({ type: 'swarm-start', swarmId: swarm.id, strategy: swarm.strategy, task })
  let status: SwarmRunStatus = 'done'
  let outcome: StrategyOutcome = {}
  let error: SwarmRunResult['error']
  try {
    outcome = await strategies[swarm.strategy](session)
  } catch (caught) {
    ;({ status, error } = classify(caught, signal))
    session.finishRound()
    session.emit({ type: 'swarm-error', error: error! })
  }
  const result: SwarmRunResult = {
    runId,
    swarmId: swarm.id,
    strategy: swarm.strategy,
    status,
    output: session.output,
    ...outcome,
    rounds: session.rounds,
    usage: session.usage,
    usageByAgent: session.usageByAgent,
    ...(options.journal ? { journal: session.journal } : {}),
    ...(error ? { error } : {}),
  }
  // The run's own keyspace ends with it; a root's keyspace (a given space) is its root's to end.
  await session.settled()
  if (options.conclave?.space === undefined) {
    await session.conclave.store.expire(runId, 0).catch(() => undefined)
  }
  session.emit({ type: 'swarm-finish', result })
  return result
}

function classify(
  caught: unknown,
  signal: AbortSignal,
): { status: SwarmRunStatus; error: { code: string; message: string } } {
  const baton = findBatonError(caught)
  if (baton?.code === 'BUDGET_EXCEEDED') {
    return { status: 'failed', error: { code: baton.code, message: baton.shortMessage } }
  }
  if (signal.aborted || baton?.code === 'CANCELLED') {
    const reason = signal.aborted ? signal.reason : caught
    const message = BatonError.isInstance(reason)
      ? reason.shortMessage
      : reason instanceof Error
        ? reason.message
        : 'The swarm run was cancelled.'
    return { status: 'cancelled', error: { code: 'CANCELLED', message } }
  }
  if (baton) return { status: 'failed', error: { code: baton.code, message: baton.shortMessage } }
  const message = caught instanceof Error ? caught.message : String(caught)
  return { status: 'failed', error: { code: 'SWARM_RUN_FAILED', message } }
}

/** The first Baton error in the cause chain: model SDKs may wrap the abort reason. */
function findBatonError(caught: unknown): BatonError | undefined {
  const seen = new Set<unknown>()
  for (let current = caught; current && !seen.has(current); ) {
    seen.add(current)
    if (BatonError.isInstance(current)) return current
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}
