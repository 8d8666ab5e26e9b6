import { waitFor } from '@baton/testing/processes'
import type { FastifyBaseLogger } from 'fastify'
import { describe, expect, it } from 'vitest'
import { queueNeverStartedRuns } from './queue-never-started-runs'

type Look = { storedBefore?: Date; limit?: number }

/** A logger that keeps its warnings. */
function warnings() {
  const seen: { fields: Record<string, unknown>; message: string }[] = []
  const logger = {
    warn: (fields: Record<string, unknown>, message: string) => seen.push({ fields, message }),
  } as unknown as FastifyBaseLogger
  return { seen, logger }
}

describe('queueNeverStartedRuns', () => {
  it('looks at start and then every interval, at runs older than the grace, and goes on after a failed look', async () => {
    const looks: { at: number; filter: Look }[] = []
    const { seen, logger } = warnings()
    const looking = await queueNeverStartedRuns({
      runs: {
        async queueNeverStarted(filter = {}) {
          looks.push({ at: Date.now(), filter })
          if (looks.length === 2) throw new Error('Redis is away')
          return looks.length === 3 ? ['run-1'] : []
        },
      },
      everyMs: 20,
      graceMs: 5_000,
      limit: 7,
      logger,
    })
    // The first look is done when it resolves.
    expect(looks).toHaveLength(1)
    await waitFor(() => (looks.length >= 4 ? true : undefined), { what: 'four looks' })
    await looking.stop()
    for (const { at, filter } of looks) {
      expect(filter.limit).toBe(7)
      expect(at - filter.storedBefore!.getTime()).toBeGreaterThanOrEqual(5_000)
      expect(at - filter.storedBefore!.getTime()).toBeLessThan(5_100)
    }
    // The failed look is a warning, the next one goes on and says what it queued.
    expect(seen[0]?.message).toBe('looking for runs never queued failed')
    expect(seen[1]).toEqual({
      fields: { runs: ['run-1'] },
      message: 'runs stored and never queued, queued again',
    })
  })

  it('stops: waits for the look in progress, and looks no more', async () => {
    let looks = 0
    let finish!: () => void
    const { logger } = warnings()
    const looking = await queueNeverStartedRuns({
      runs: {
        queueNeverStarted() {
          looks += 1
          if (looks === 1) return Promise.resolve([])
          return new Promise<string[]>((resolve) => {
            finish = () => resolve([])
          })
        },
      },
      everyMs: 10,
      graceMs: 0,
      logger,
    })
    await waitFor(() => (looks === 2 ? true : undefined), { what: 'the second look' })
    let stopped = false
    const stopping = looking.stop().then(() => {
      stopped = true
    })
    await new Promise((resolve) => setTimeout(resolve, 50))
    // A look still in progress is not cut off, and none starts meanwhile.
    expect(stopped).toBe(false)
    expect(looks).toBe(2)
    finish()
    await stopping
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(looks).toBe(2)
  })
})
