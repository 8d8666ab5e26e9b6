import { createBudget, runAgent } from '@baton/core'
import { benchAgent } from '../../fixtures'
import { createInstantModels } from '../../instant'
import type { Size } from '../types'
import { timeRunLoop } from './run-agent-loop'

/** `runAgent` of a plain agent on one budget. */
export function subject(size: Size) {
  const models = createInstantModels()
  const budget = createBudget()
  return timeRunLoop(size, () => runAgent(benchAgent, 'Hi', { budget, models }))
}
