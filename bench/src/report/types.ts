import type { Figure, Subject } from '../cases'
import type { SelfTime } from './top-self-time'

/** What a subject's process reported. */
export type Outcome = { ok: true; figure: Figure } | { ok: false; error: string }

/** One row of the table, as the JSON in `bench/results/` keeps it. */
export type Row = {
  case: string
  work: string
  unit: string
  higherIsBetter: boolean
  target: string
  /** `undefined` when Baton's figure is missing (its subject threw). */
  met: boolean | undefined
  outcomes: Partial<Record<Subject, Outcome>>
  /** Baton's time per unit of work ÷ each other subject's (below 1: Baton is faster). */
  ratios: Partial<Record<Subject, number>>
  /** With `--profile`: where each subject's process (and `<subject> server`) spent its time. */
  profiles?: Record<string, SelfTime[]>
}
