import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createBudget } from '@baton/core'
import { createSupervisor } from '@baton/subagents'
import { END, Send, START } from '@langchain/langgraph'
import { Agent as OpenAIAgent, Runner } from '@openai/agents'
import { delegatingAgent } from '../../fixtures'
import {
  createInstantAgentsProvider,
  createInstantChatModel,
  createInstantLanguageModel,
  createInstantModels,
} from '../../instant'
import { timeRuns } from '../../measure'
import { createLooseGraph } from '../../peers'
import { formatNumber } from '../../report/format-number'
import type { Figure, Size, Subjects } from '../types'
import { fanoutWidth } from './fanout-case'

/**
 * The fan-out at full width, warm (see `timeRuns`): the mean of the timed runs, and the first
 * run's time, after a warm-up at a tenth of the width, with the resident set it added.
 * Removing a run's directories is not part of its fan-out; it happens off the clock.
 */
async function measure(size: Size, fanOut: (width: number) => Promise<FanOut>): Promise<Figure> {
  const width = fanoutWidth(size)
  const { ms, cpuMs, firstMs, peakMiB, runs } = await timeRuns({
    warmUp: async () => (await fanOut(Math.max(1, width / 10))).cleanup?.(),
    run: async () => {
      const outcome = await fanOut(width)
      if (outcome.done !== width) {
        await outcome.cleanup?.()
        throw new Error(`${outcome.done} of ${width} finished`)
      }
      return outcome
    },
    cleanup: (outcome) => outcome.cleanup?.(),
  })
  return {
    value: ms,
    text: `${formatNumber(ms)} (CPU ${formatNumber(cpuMs)}; first run ${formatNumber(firstMs)})`,
    memoryMiB: peakMiB,
    details: { cpuMilliseconds: cpuMs, firstMilliseconds: firstMs, runs },
  }
}

type FanOut = { done: number; cleanup?: () => Promise<void> }

/** N pieces of work started at once, each one instant model call, all awaited together. */
export const fanoutSubjects: Subjects = {
  bare: (size) => {
    const model = createInstantLanguageModel()
    return measure(size, async (width) => {
      const results = await Promise.all(
        Array.from({ length: width }, () => model.doGenerate({ prompt: [] })),
      )
      return { done: results.length }
    })
  },

  // The Send API: one node fans out to N `worker` runs, their answers reduced into `results`.
  langgraph: (size) => {
    const model = createInstantChatModel()
    let width = 0
    const graph = createLooseGraph()
      .addNode('plan', () => ({}))
      .addNode('worker', async (state) => ({
        results: [String((await model.invoke(`Part ${state.count}`)).content)],
      }))
      .addEdge(START, 'plan')
      .addConditionalEdges('plan', () =>
        Array.from({ length: width }, (_, index) => new Send('worker', { count: index })),
      )
      .addEdge('worker', END)
      .compile()
    return measure(size, async (next) => {
      width = next
      const state = await graph.invoke({ results: [] })
      return { done: state.results.length }
    })
  },

  // N runs of one agent, started together (the SDK's way to run agents in parallel).
  agents: (size) => {
    const runner = new Runner({
      modelProvider: createInstantAgentsProvider(),
      tracingDisabled: true,
    })
    const agent = new OpenAIAgent({ name: 'worker', instructions: 'Do your part.' })
    return measure(size, async (width) => {
      const results = await Promise.all(
        Array.from({ length: width }, (_, index) => runner.run(agent, `Part ${index}`)),
      )
      return { done: results.filter((result) => result.finalOutput === 'ok').length }
    })
  },

  baton: (size) => {
    const models = createInstantModels()
    return measure(size, async (width) => {
      const root = await mkdtemp(path.join(tmpdir(), 'baton-bench-fanout-'))
      const supervisor = createSupervisor({
        agent: delegatingAgent,
        workspace: { kind: 'directory', root },
        budget: createBudget(),
        models,
      })
      const ids = Array.from({ length: width }, (_, index) => supervisor.delegate(`Part ${index}`))
      const reports = (await supervisor.waitAgents(ids)) ?? {}
      return {
        done: Object.values(reports).filter((report) => report.status === 'done').length,
        async cleanup() {
          await supervisor.cleanup()
          await rm(root, { recursive: true, force: true })
        },
      }
    })
  },
}
