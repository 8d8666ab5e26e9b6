import type { BudgetLimits } from '../schemas/budget'
import type { Remaining } from './budget-types'
import { DIMENSIONS, type Dimension } from './node-books'

/** Throws the error for a child that asks for `requested` in `dimension`, more than is left. */
export type RefuseChild = (dimension: Dimension | 'wallMs', requested: number) => never

/**
 * The limits of a new child: what it asked for, and where it asked for nothing, all that its
 * parent has `left` (no limit where that is unlimited). Asking for more than is left calls
 * `refuse`, which throws.
 *
 * @example
 * childLimits({ calls: 2 }, parent.remaining(), refuse) // { calls: 2, tokens: …, … }
 */
export function childLimits(
  wanted: BudgetLimits,
  left: Remaining,
  refuse: RefuseChild,
): BudgetLimits {
  const capped: BudgetLimits = {}
  for (const key of DIMENSIONS) {
    const want = wanted[key]
    if (want !== undefined && want > left[key]) refuse(key, want)
    const value = want ?? left[key]
    if (Number.isFinite(value)) capped[key] = value
  }
  const wantWall = wanted.maxWallMs
  if (wantWall !== undefined && wantWall > left.wallMs) refuse('wallMs', wantWall)
  const wall = wantWall ?? left.wallMs
  if (Number.isFinite(wall)) capped.maxWallMs = wall
  return capped
}
