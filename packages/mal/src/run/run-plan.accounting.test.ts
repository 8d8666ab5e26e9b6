import { createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { offlineModels } from '../__fixtures__/offline-models'
import { runPlan } from './run-plan'

// `offline:*` answers soon (late enough that the slower branch has started its call, even on
// a loaded machine); `late:*` answers after a while and, like a provider whose answer was
// already on its way, is not stopped by an abort. Both count what they answered.
function countingModels() {
  const answered = { calls: 0 }
  const models = offlineModels({
    providers: { offline: { delayMs: 50 }, late: { delayMs: 250, ignoreAbort: true } },
    onAnswer: () => {
      answered.calls += 1
    },
  })
  return { models, answered }
}

const call = (saveAs: string, model: string) => ({ op: 'models_call', saveAs, model, prompt: 'p' })

describe('runPlan spend accounting', () => {
  // A `first` fanout cancels the losing branches' budgets as soon as one wins. A loser whose
  // call is answered anyway was paid for: it must show in the run's usage (and its budget),
  // or a later step could spend the same money again.
  it('charges a call answered after its branch lost a first-gather fanout', {
    timeout: 60_000,
  }, async () => {
    const { models, answered } = countingModels()
    const result = await runPlan(
      {
        steps: [
          {
            op: 'fanout',
            saveAs: 'fastest',
            gather: 'first',
            branches: [
              { id: 'quick', steps: [call('quick', 'offline:default')] },
              { id: 'late', steps: [call('late', 'late:default')] },
            ],
          },
        ],
      },
      // Whole calls (doGenerate): a streamed call cut off before its answer came is not.
      { registry: createStaticRegistry([]), models, stepDeltas: false },
    )
    expect(result.status).toBe('done')
    expect(result.values.fastest).toEqual(expect.any(String))
    // The fanout waits for its losers to wind down, so the late answer is in by now.
    expect(answered.calls).toBe(2)
    expect(result.usage.calls).toBe(2)
    expect(result.usageByWallet.coordinator?.calls).toBe(2)
  })
})
