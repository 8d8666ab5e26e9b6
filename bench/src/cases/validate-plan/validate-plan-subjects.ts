import { parsePlan } from '@baton/mal'
import { benchWallet } from '../../fixtures'
import { timePerOperation } from '../../measure'
import { formatNumber } from '../../report/format-number'
import type { Subjects } from '../types'
import { planSteps } from './validate-plan-case'

/** A chain of `delegate` steps, each reading the one before, as the plans users write. */
function planOf(steps: number) {
  return {
    name: 'large',
    inputs: { request: 'string' },
    budget: { cost: 10 },
    steps: [
      ...Array.from({ length: steps - 1 }, (_, index) => ({
        op: 'delegate',
        saveAs: `s${index}`,
        agentWallet: benchWallet,
        prompt: `Step ${index}: {{inputs.request}}${index > 0 ? ` after {{s${index - 1}}}` : ''}`,
      })),
      { op: 'stop', output: `{{s${steps - 2}}}` },
    ],
  }
}

function toYaml(plan: ReturnType<typeof planOf>): string {
  const lines = ['name: large', 'inputs: { request: string }', 'budget: { cost: 10 }', 'steps:']
  for (const step of plan.steps) {
    const entries = Object.entries(step)
    lines.push(
      ...entries.map(
        ([key, value], index) => `${index === 0 ? '  - ' : '    '}${key}: ${JSON.stringify(value)}`,
      ),
    )
  }
  return lines.join('\n')
}

/** The whole plan read and checked once. */
export const validatePlanSubjects: Subjects = {
  // Reading the plan's JSON at all: the least any validation costs.
  async bare(size) {
    const text = JSON.stringify(planOf(planSteps(size)))
    const { microseconds } = await timePerOperation({
      operations: 1,
      work: async () => JSON.parse(text),
    })
    return { value: microseconds / 1000 }
  },

  async baton(size) {
    const plan = planOf(planSteps(size))
    const yaml = toYaml(plan)
    const objectUs = (await timePerOperation({ operations: 1, work: async () => parsePlan(plan) }))
      .microseconds
    const yamlUs = (await timePerOperation({ operations: 1, work: async () => parsePlan(yaml) }))
      .microseconds
    return {
      value: objectUs / 1000,
      text: `${formatNumber(objectUs / 1000)} (object) / ${formatNumber(yamlUs / 1000)} (YAML)`,
      details: { objectMs: objectUs / 1000, yamlMs: yamlUs / 1000 },
    }
  },
}
