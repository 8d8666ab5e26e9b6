import { Agent, createBudget, runAgent } from '@baton/core'
import { benchAgent, benchAgentInput } from '../../fixtures'
import { createInstantModels } from '../../instant'
import type { Figure, Size } from '../types'
import { timeRunLoop } from './run-agent-loop'

// What a user who passes no `models` runs: the default registry and its `offline` model.
const offlineAgent = Agent.parse({ ...benchAgentInput, model: 'offline:default' })

/**
 * `runAgent` of a plain agent on one budget, with the row's instant model; beside it, the same
 * with no `models` on `offline:default` (the default registry's path, which the row's own
 * registry never takes: a cost there showed in no row).
 */
export async function subject(size: Size): Promise<Figure> {
  const models = createInstantModels()
  const budget = createBudget()
  const figure = await timeRunLoop(size, () => runAgent(benchAgent, 'Hi', { budget, models }))
  const defaults = await timeRunLoop(size, () => runAgent(offlineAgent, 'Hi', { budget }))
  return {
    ...figure,
    text: `${figure.text}; no \`models\`, \`offline:default\`: ${defaults.text}`,
    details: {
      ...figure.details,
      defaultRegistryMicroseconds: defaults.value,
      defaultRegistryCpuMicroseconds: Number(defaults.details?.cpuMicroseconds),
    },
  }
}
