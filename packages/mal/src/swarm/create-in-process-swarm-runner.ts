import { randomUUID } from 'node:crypto'
import type { AgentSwarm, AgentSwarmInput, Budget, ModelRegistry, ToolRegistry } from '@baton/core'
import { prepareSwarm } from './prepare-swarm'
import { executeSwarm } from './run-swarm'
import { SwarmNotFoundError, SwarmRunCancelledError } from './swarm-errors'
import type { AgentSource, RunMember, SwarmEvent, SwarmRunResult } from './types'

/** Starts swarm runs in this process and streams their events (what a UI store binds to). */
export interface SwarmRunner {
  /** Validates the swarm and its members, starts the run, and resolves with its id. */
  start(swarmId: string, task: string): Promise<string>
  /** Replays the run's buffered events to `onEvent`, then delivers new ones; returns unsubscribe. */
  subscribe(runId: string, onEvent: (event: SwarmEvent) => void): () => void
  /** The result once the run has finished; `undefined` while it runs or if the id is unknown. */
  get(runId: string): SwarmRunResult | undefined
  /** Stops a run in progress; true if there was one to stop. */
  cancel(runId: string): boolean
}

export type CreateInProcessSwarmRunnerOptions = {
  swarms:
    | (AgentSwarm | AgentSwarmInput)[]
    | ((swarmId: string) => AgentSwarm | AgentSwarmInput | undefined)
  agents: AgentSource
  /** Shared by every run; each member call gets a child of it. */
  budget?: Budget
  models?: ModelRegistry
  toolRegistry?: ToolRegistry
  runMember?: RunMember
  /** Events kept per run for late subscribers (default 1000; the `swarm-start` is always kept). */
  maxBufferedEvents?: number
  /** Finished runs kept for `get` and replay (default 100, oldest dropped first). */
  maxFinishedRuns?: number
}

type RunRecord = {
  events: SwarmEvent[]
  listeners: Set<(event: SwarmEvent) => void>
  /** Dropped when the run ends: its signal keeps every signal derived from it alive. */
  controller: AbortController | undefined
  result?: SwarmRunResult
}

/**
 * Runs swarms in-process for a UI: `start` returns a run id at once, and a subscriber that
 * attaches later still sees every event from `swarm-start` on.
 *
 * @example
 * const runner = createInProcessSwarmRunner({ swarms, agents, budget: createBudget({ cost: 1 }) })
 * const runId = await runner.start('review-board', 'Review the release notes')
 * runner.subscribe(runId, (event) => store.apply(event))
 */
export function createInProcessSwarmRunner(
  options: CreateInProcessSwarmRunnerOptions,
): SwarmRunner {
  const maxBufferedEvents = Math.max(2, options.maxBufferedEvents ?? 1000)
  const maxFinishedRuns = Math.max(1, options.maxFinishedRuns ?? 100)
  const runs = new Map<string, RunRecord>()
  const finished: string[] = []
  const findSwarm =
    typeof options.swarms === 'function'
      ? options.swarms
      : (swarmId: string) =>
          (options.swarms as AgentSwarmInput[]).find((swarm) => swarm.id === swarmId)

  const deliver = (record: RunRecord, event: SwarmEvent) => {
    // Set before listeners run, so one reacting to swarm-finish can already `get` the result.
    if (event.type === 'swarm-finish') record.result = event.result
    // Streamed text is live only: a late subscriber reads the answers in the messages.
    if (event.type !== 'step-delta') {
      record.events.push(event)
      // Keep the swarm-start (a late subscriber needs it) and drop the oldest after it.
      if (record.events.length > maxBufferedEvents) record.events.splice(1, 1)
    }
    for (const listener of record.listeners) {
      try {
        listener(event)
      } catch {
        // One subscriber's bug must not starve the others.
      }
    }
  }

  const retire = (runId: string) => {
    finished.push(runId)
    while (finished.length > maxFinishedRuns) runs.delete(finished.shift()!)
  }

  return {
    async start(swarmId, task) {
      const input = findSwarm(swarmId)
      if (!input) throw new SwarmNotFoundError(swarmId)
      const prepared = await prepareSwarm(input, options.agents)
      const runId = `swarm-run-${randomUUID()}`
      const controller = new AbortController()
      const record: RunRecord = { events: [], listeners: new Set(), controller }
      runs.set(runId, record)
      void executeSwarm(prepared, task, {
        runId,
        signal: controller.signal,
        onEvent: (event) => deliver(record, event),
        ...(options.budget ? { budget: options.budget } : {}),
        ...(options.models ? { models: options.models } : {}),
        ...(options.toolRegistry ? { toolRegistry: options.toolRegistry } : {}),
        ...(options.runMember ? { runMember: options.runMember } : {}),
      }).then(() => {
        record.controller = undefined
        record.listeners.clear()
        retire(runId)
      })
      return runId
    },
    subscribe(runId, onEvent) {
      const record = runs.get(runId)
      if (!record) return () => {}
      for (const event of [...record.events]) onEvent(event)
      if (record.result) return () => {}
      record.listeners.add(onEvent)
      return () => {
        record.listeners.delete(onEvent)
      }
    },
    get(runId) {
      return runs.get(runId)?.result
    },
    cancel(runId) {
      const record = runs.get(runId)
      const controller = record?.controller
      if (!record || !controller || record.result || controller.signal.aborted) return false
      controller.abort(new SwarmRunCancelledError(runId))
      return true
    },
  }
}
