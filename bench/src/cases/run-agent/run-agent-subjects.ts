import { createInstantLanguageModel } from '@baton/testing/instant-models'
import { lazySubject } from '../lazy-subject'
import type { Subjects } from '../types'
import { timeRunLoop } from './run-agent-loop'

/** One agent run with one instant model call, awaited before the next. */
export const runAgentSubjects: Subjects = {
  bare: (size) => {
    const model = createInstantLanguageModel()
    return timeRunLoop(size, async () => model.doGenerate({ prompt: [] }))
  },
  langgraph: lazySubject(() => import('./run-agent-langgraph')),
  agents: lazySubject(() => import('./run-agent-agents')),
  baton: lazySubject(() => import('./run-agent-baton')),
}
