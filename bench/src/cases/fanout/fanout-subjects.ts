import { createInstantLanguageModel } from '@baton/testing/instant-models'
import { lazySubject } from '../lazy-subject'
import type { Subjects } from '../types'
import { measureFanOut } from './fanout-measure'

/** N pieces of work started at once, each one instant model call, all awaited together. */
export const fanoutSubjects: Subjects = {
  bare: (size) => {
    const model = createInstantLanguageModel()
    return measureFanOut(size, async (width) => {
      const results = await Promise.all(
        Array.from({ length: width }, () => model.doGenerate({ prompt: [] })),
      )
      return { done: results.length }
    })
  },
  langgraph: lazySubject(() => import('./fanout-langgraph')),
  agents: lazySubject(() => import('./fanout-agents')),
  baton: lazySubject(() => import('./fanout-baton')),
}
