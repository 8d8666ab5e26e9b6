import { type BenchCase, type Figure, type Size, SUBJECTS, type Subject } from '../cases'
import type { Outcome, Row } from './types'

/**
 * A case's row from its subjects' outcomes: whether Baton meets the target, and Baton's cost
 * per unit of work over each other subject's.
 *
 * @example
 * const row = buildRow(chainCase, 'full', outcomes)
 * row.ratios.bare // 1411: Baton takes 1411 times as long per hop as bare awaited calls
 */
export function buildRow(
  benchCase: BenchCase,
  size: Size,
  outcomes: Partial<Record<Subject, Outcome>>,
): Row {
  const figures: Partial<Record<Subject, Figure>> = {}
  for (const subject of SUBJECTS) {
    const outcome = outcomes[subject]
    if (outcome?.ok) figures[subject] = outcome.figure
  }
  const baton = figures.baton
  const ratios: Partial<Record<Subject, number>> = {}
  for (const subject of SUBJECTS) {
    const other = figures[subject]
    if (!baton || !other || subject === 'baton' || other.value === 0 || baton.value === 0) continue
    ratios[subject] = benchCase.higherIsBetter
      ? other.value / baton.value
      : baton.value / other.value
  }
  return {
    case: benchCase.name,
    work: benchCase.work(size),
    unit: benchCase.unit,
    higherIsBetter: benchCase.higherIsBetter ?? false,
    target: benchCase.target.text,
    met: baton ? benchCase.target.met(baton, figures) : undefined,
    outcomes,
    ratios,
  }
}
