import { waitFor } from '@baton/testing/processes'
import { expect } from 'vitest'
import type { Repositories } from '../../db/repositories'
import type { StoredRun } from '../../db/runs-repository'

const finals = ['done', 'failed', 'stopped', 'cancelled']

/**
 * Checks on runs read straight from the deployment's PostgreSQL: they finished, each exactly
 * once, and the ledger holds what their records say they used.
 *
 * @example
 * const checks = runChecks(repositories)
 * await checks.waitUntilFinal(ids, 'the runs to finish')
 * await checks.assertRanOnce(ids, 3)
 */
export function runChecks(repositories: Repositories) {
  return {
    /** Every run of `ids`, once each is final. */
    waitUntilFinal(ids: string[], what: string, timeoutMs = 90_000): Promise<StoredRun[]> {
      return waitFor(
        async () => {
          const runs = await Promise.all(ids.map((id) => repositories.runs.find(id)))
          return runs.every((run) => run && finals.includes(run.status))
            ? runs.map((run) => run!)
            : undefined
        },
        { timeoutMs, intervalMs: 250, what },
      )
    },

    /**
     * Each run's events: it started and finished exactly once, and every step finished once (the
     * top-level steps `steps[0]` … of `steps`, or the paths `finishes` in that order).
     */
    async assertRanOnce(ids: string[], steps: number | string[]): Promise<void> {
      const expected =
        typeof steps === 'number'
          ? Array.from({ length: steps }, (_, index) => `steps[${index}]`)
          : steps
      for (const id of ids) {
        const events = (await repositories.runs.events(id)).map((stored) => stored.event)
        const types = events.map((event) => event.type)
        expect(types.filter((type) => type === 'run-finish')).toHaveLength(1)
        expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index))
        const finished = events
          .filter((event) => event.type === 'step-finish')
          .map((event) => event.path)
        expect(finished).toEqual(expected)
        const stored = await repositories.runs.steps(id)
        expect(stored.map((step) => step.path)).toEqual(
          expected.filter((path) => /^steps\[\d+\]$/.test(path)),
        )
      }
    },

    /** The ledger holds exactly what the runs' records say they used, in every dimension. */
    async assertLedgerMatches(runIds: string[]): Promise<void> {
      const rows = await repositories.ledger.spend({ by: 'run' })
      const ledger = new Map(rows.map((row) => [row.key, row]))
      for (const id of runIds) {
        const run = await repositories.runs.find(id)
        const books = ledger.get(id) ?? { calls: 0, tokens: 0, costUsd: 0 }
        expect(books.calls, `calls of run ${id}`).toBe(run?.usage.calls)
        expect(books.tokens, `tokens of run ${id}`).toBe(run?.usage.tokens)
        expect(books.costUsd).toBeCloseTo(run?.usage.costUsd ?? 0, 9)
      }
    },
  }
}
