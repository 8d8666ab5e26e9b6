import { createBudget, runAgent } from '@baton/core'
import { streamText } from 'ai'
import { benchAgent } from '../../fixtures'
import { createInstantLanguageModel, createInstantModels } from '../../instant'
import type { Figure, Subjects } from '../types'
import { streamCount } from './stream-case'

/** The median of `count` timings (after a warm-up of a tenth as many), in µs. */
export async function medianOf(
  count: number,
  once: () => Promise<number>,
  scale = 1000,
): Promise<Figure> {
  for (let index = 0; index < Math.ceil(count / 10); index += 1) await once()
  const times: number[] = []
  for (let index = 0; index < count; index += 1) times.push(await once())
  times.sort((a, b) => a - b)
  const median = times[Math.floor(times.length / 2)]! * scale
  const p90 = times[Math.floor(times.length * 0.9)]! * scale
  return { value: median, details: { p90, count } }
}

/** Milliseconds from the start of a streamed call to its first text delta, whole stream read. */
export const streamFirstDeltaSubjects: Subjects = {
  bare: (size) => {
    const model = createInstantLanguageModel()
    return medianOf(streamCount(size), async () => {
      const started = performance.now()
      let first: number | undefined
      const result = streamText({ model, prompt: 'Hi' })
      for await (const _text of result.textStream) first ??= performance.now()
      return (first ?? performance.now()) - started
    })
  },

  baton: (size) => {
    const models = createInstantModels()
    const budget = createBudget()
    return medianOf(streamCount(size), async () => {
      const started = performance.now()
      let first: number | undefined
      await runAgent(benchAgent, 'Hi', {
        budget,
        models,
        onDelta: (delta) => {
          if (delta.type === 'text-delta') first ??= performance.now()
        },
      })
      return (first ?? performance.now()) - started
    })
  },
}
