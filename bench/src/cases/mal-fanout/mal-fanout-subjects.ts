import { createBudget, createStaticRegistry } from '@baton/core'
import { parsePlan, runPlan } from '@baton/mal'
import { benchAgentInput } from '../../fixtures'
import { createInstantLanguageModel, createInstantModels, INSTANT_MODEL_REF } from '../../instant'
import { timeRuns } from '../../measure'
import { formatNumber } from '../../report/format-number'
import { assertDone } from '../assert-done'
import type { Figure, Size, Subjects } from '../types'
import { branchCount } from './mal-fanout-case'

/**
 * The fan-out at full width, warm (see `timeRuns`): the mean of the timed runs, its CPU beside
 * it (on a shared machine, wall time also counts the waits for a core), and the first run's
 * time, after a warm-up at a tenth of the width, with the resident set it added.
 */
async function measure(size: Size, fanOut: (width: number) => Promise<number>): Promise<Figure> {
  const width = branchCount(size)
  const { ms, cpuMs, firstMs, peakMiB, runs } = await timeRuns({
    warmUp: () => fanOut(Math.max(1, width / 10)),
    run: async () => {
      const done = await fanOut(width)
      if (done !== width) throw new Error(`${done} of ${width} branches answered`)
      return done
    },
  })
  return {
    value: ms,
    text: `${formatNumber(ms)} (CPU ${formatNumber(cpuMs)}; first run ${formatNumber(firstMs)})`,
    memoryMiB: peakMiB,
    details: { cpuMilliseconds: cpuMs, firstMilliseconds: firstMs, runs },
  }
}

function fanoutPlan(width: number) {
  return parsePlan({
    name: 'fanout',
    steps: [
      {
        op: 'fanout',
        saveAs: 'all',
        branches: Array.from({ length: width }, (_, index) => ({
          id: `b${index}`,
          steps: [
            { op: 'models_call', saveAs: `v${index}`, model: INSTANT_MODEL_REF, prompt: 'Hi' },
          ],
        })),
      },
    ],
  })
}

/** N branches, each one instant model call, joined. */
export const malFanoutSubjects: Subjects = {
  bare: (size) => {
    const model = createInstantLanguageModel()
    return measure(size, async (width) => {
      const results = await Promise.all(
        Array.from({ length: width }, () => model.doGenerate({ prompt: [] })),
      )
      return results.length
    })
  },

  baton: (size) => {
    const registry = createStaticRegistry([benchAgentInput])
    const models = createInstantModels()
    const plans = new Map<number, ReturnType<typeof fanoutPlan>>()
    // Plans are parsed before the clock starts: this row is about running the fan-out.
    for (const width of [Math.max(1, branchCount(size) / 10), branchCount(size)]) {
      plans.set(width, fanoutPlan(width))
    }
    return measure(size, async (width) => {
      const result = await runPlan(plans.get(width)!, { registry, models, budget: createBudget() })
      assertDone(result)
      return result.usage.calls
    })
  },
}
