import type { Budget } from '@baton/core'
import type { RunCursor } from './run-state'

export type Frame = {
  /** The budget steps of this block are carved from. */
  budget: Budget
  /** Values in scope (a fanout branch has its own copy). */
  values: Record<string, unknown>
  /** The block's path, e.g. `steps` or `steps[2].branches[0].steps`. */
  path: string
  iteration?: number
}

export type Pause = {
  kind: 'pause'
  cursor: RunCursor
  path: string
  saveAs: string
  question: string
}
export type Stop = { kind: 'stop'; output: unknown; reason?: string }
export type BlockOutcome = { kind: 'next'; last: unknown } | Stop | Pause
export type StepResult =
  | { kind: 'next' }
  | Stop
  | (Omit<Pause, 'cursor'> & { cursor: Omit<RunCursor, 'index'> })
