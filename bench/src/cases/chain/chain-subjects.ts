import { createInstantLanguageModel } from '@baton/testing/instant-models'
import { timePerOperation } from '../../measure'
import { formatNumber } from '../../report/format-number'
import { lazySubject } from '../lazy-subject'
import type { Subjects } from '../types'
import { hops } from './hops'

/** Each hop is one model call on the instant model, passed on to the next. */
export const chainSubjects: Subjects = {
  async bare(size) {
    const model = createInstantLanguageModel()
    const count = hops(size)
    const { microseconds } = await timePerOperation({
      operations: count,
      work: async () => {
        for (let index = 0; index < count; index += 1) await model.doGenerate({ prompt: [] })
      },
    })
    return { value: microseconds, text: formatNumber(microseconds) }
  },
  langgraph: lazySubject(() => import('./chain-langgraph')),
  agents: lazySubject(() => import('./chain-agents')),
  baton: lazySubject(() => import('./chain-baton')),
}
