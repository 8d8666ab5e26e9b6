import { AgentSwarm, parseWith } from '@baton/core'
import { z } from 'zod'
import { createStore, type StoreApi } from 'zustand/vanilla'
import { fetchList, type ListEndpoint } from '../http/fetch-list'
import { requireListInBody } from '../http/list-in-body'
import { InvalidSwarmIdError } from '../swarm-agent/invalid-swarm-id-error'
import { isValidSwarmId } from '../swarm-agent/swarm-agent-id'
import type { SwarmRunEvent, SwarmRunner } from '../swarm-runner/types'
import { AdvancedAgentStoreOptionsSchema } from './advanced-agent-store-options-schema'
import { applySwarmEvent, type SwarmRunState } from './apply-swarm-event'
import { parseSwarmList } from './parse-swarm-list'
import {
  SwarmRunnerMissingError,
  SwarmRunStartError,
  SwarmsUnavailableError,
  UnknownSwarmError,
} from './swarm-run-errors'

// The events a run's state is made of; anything else a runner sends is passed over.
const KEPT_EVENT_TYPES = new Set<string>([
  'swarm-start',
  'round-start',
  'swarm-message',
  'round-finish',
  'swarm-finish',
  'swarm-error',
])
/** Where `loadSwarms` gets the swarms: a function returning the raw list, or a server. */
export type SwarmSource = (() => Promise<unknown>) | ListEndpoint

export type AdvancedAgentStoreState = {
  swarms: AgentSwarm[]
  /** Runs by run id, from `startSwarmRun` until `forgetSwarmRun`. */
  runs: Record<string, SwarmRunState>
  /** Replaces the swarms; each is validated. Throws `ValidationError` and keeps the old list. */
  setSwarms(swarms: readonly unknown[]): AgentSwarm[]
  upsertSwarm(swarm: unknown): AgentSwarm
  removeSwarm(swarmId: string): boolean
  /** Loads the swarms from a function or `GET {baseUrl}/swarms`. */
  loadSwarms(source: SwarmSource): Promise<AgentSwarm[]>
  getSwarm(swarmId: string): AgentSwarm | undefined
  /**
   * Starts a run of a known swarm and resolves with its run id once the run is in `runs` and
   * its events are flowing. Rejects with `InvalidSwarmIdError`, `UnknownSwarmError`,
   * `ValidationError` (empty task), `SwarmRunnerMissingError` or `SwarmRunStartError`; on a
   * rejection nothing of the run is left behind.
   */
  startSwarmRun(swarmId: string, task: string): Promise<string>
  /** Asks the runner to stop a run; false if it cannot (unknown, finished, no `cancel`). */
  cancelSwarmRun(runId: string): Promise<boolean>
  /** Drops a run (and its subscription) from the store. */
  forgetSwarmRun(runId: string): void
}

export type AdvancedAgentStore = StoreApi<AdvancedAgentStoreState>

export type CreateAdvancedAgentStoreOptions = {
  /** Starts the runs; without one `startSwarmRun` rejects with `SwarmRunnerMissingError`. */
  runner?: SwarmRunner
  swarms?: readonly unknown[]
  /** Events kept per run: an integer, at least 2 (default 500; the first is always kept). */
  maxEventsPerRun?: number
}

const Task = z.string().trim().min(1, 'must not be empty')

/**
 * Swarms and their runs, as a vanilla zustand store (bind it to React with
 * `useAdvancedAgentStore`). Runs start through the `SwarmRunner` it is given and their
 * events land in `runs[runId]` as they arrive.
 *
 * @example
 * const store = createAdvancedAgentStore({ runner, swarms: [swarm] })
 * const runId = await store.getState().startSwarmRun('research', 'Compare Q1 and Q2')
 * store.subscribe((state) => console.log(state.runs[runId]?.status))
 */
export function createAdvancedAgentStore(
  options: CreateAdvancedAgentStoreOptions = {},
): AdvancedAgentStore {
  parseWith(AdvancedAgentStoreOptionsSchema, options, 'createAdvancedAgentStore options')
  const maxEvents = options.maxEventsPerRun ?? 500
  const subscriptions = new Map<string, () => void>()
  let latestLoad = 0

  const store = createStore<AdvancedAgentStoreState>()((set, get) => {
    const updateRun = (runId: string, event: SwarmRunEvent) => {
      const run = get().runs[runId]
      // A runner's live-only events (a member's streamed `step-delta` text) are not kept: they
      // would push the run's messages out of its bounded event list.
      if (!run || !KEPT_EVENT_TYPES.has(event.type)) return
      set({ runs: { ...get().runs, [runId]: applySwarmEvent(run, event, maxEvents) } })
      if (event.type === 'swarm-finish') unsubscribe(runId)
    }
    const unsubscribe = (runId: string) => {
      subscriptions.get(runId)?.()
      subscriptions.delete(runId)
    }
    const dropRun = (runId: string) => {
      unsubscribe(runId)
      const { [runId]: _dropped, ...runs } = get().runs
      set({ runs })
    }

    return {
      swarms: parseSwarmList(options.swarms ?? []),
      runs: {},
      setSwarms(list) {
        const swarms = parseSwarmList(list)
        latestLoad += 1
        set({ swarms })
        return swarms
      },
      upsertSwarm(input) {
        const swarm = parseWith(AgentSwarm, input, 'swarm')
        const swarms = get().swarms
        const index = swarms.findIndex((known) => known.id === swarm.id)
        set({ swarms: index < 0 ? [...swarms, swarm] : swarms.with(index, swarm) })
        return swarm
      },
      removeSwarm(swarmId) {
        const swarms = get().swarms
        const remaining = swarms.filter((swarm) => swarm.id !== swarmId)
        set({ swarms: remaining })
        return remaining.length !== swarms.length
      },
      async loadSwarms(source) {
        const loadNumber = ++latestLoad
        const raw =
          typeof source === 'function'
            ? await source()
            : await fetchList({
                endpoint: source,
                path: 'swarms',
                unavailable: (where, reason, errorOptions) =>
                  new SwarmsUnavailableError(where, reason, errorOptions),
              })
        const swarms = parseSwarmList(requireListInBody(raw, 'swarms'))
        if (loadNumber === latestLoad) set({ swarms })
        return swarms
      },
      getSwarm(swarmId) {
        return get().swarms.find((swarm) => swarm.id === swarmId)
      },
      async startSwarmRun(swarmId, task) {
        if (!isValidSwarmId(swarmId)) throw new InvalidSwarmIdError(swarmId, 'startSwarmRun')
        const checkedTask = parseWith(Task, task, 'task')
        if (!get().getSwarm(swarmId)) throw new UnknownSwarmError(swarmId)
        const runner = options.runner
        if (!runner) throw new SwarmRunnerMissingError(swarmId)
        let runId: string
        try {
          runId = await runner.start(swarmId, checkedTask)
        } catch (error) {
          throw new SwarmRunStartError(swarmId, error)
        }
        set({
          runs: {
            ...get().runs,
            [runId]: {
              runId,
              swarmId,
              task: checkedTask,
              status: 'running',
              events: [],
              round: 0,
              startedAt: Date.now(),
            },
          },
        })
        try {
          // The runner replays what already happened, so events from before this line arrive too.
          const stop = runner.subscribe(runId, (event) => updateRun(runId, event))
          if (get().runs[runId]?.status === 'running') subscriptions.set(runId, stop)
          else stop()
        } catch (error) {
          // A run nobody can watch is stopped and forgotten rather than left half-started.
          dropRun(runId)
          await Promise.resolve(runner.cancel?.(runId)).catch(() => undefined)
          throw new SwarmRunStartError(swarmId, error)
        }
        return runId
      },
      async cancelSwarmRun(runId) {
        const run = get().runs[runId]
        if (run?.status !== 'running' || !options.runner?.cancel) return false
        return (await options.runner.cancel(runId)) === true
      },
      forgetSwarmRun(runId) {
        dropRun(runId)
      },
    }
  })
  return store
}
