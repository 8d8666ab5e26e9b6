import { formatPath } from '@baton/core'
import type { Walked } from './check-plan'

type Path = (string | number)[]

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined

/**
 * Why a name saved under an `if` may have no value after it, for the message.
 *
 * @example
 * ifReason('approve', ['steps', 0], { thenResult, elseResult }) // 'only the then branch of the if at steps[0] saves it'
 */
export function ifReason(
  name: string,
  at: Path,
  branches: { thenResult: Walked; elseResult: Walked },
): string {
  const where = formatPath(at)
  const inThen = branches.thenResult.saved.has(name)
  const inElse = branches.elseResult.saved.has(name)
  if (inThen && !inElse) return `only the then branch of the if at ${where} saves it`
  if (inElse && !inThen) return `only the else branch of the if at ${where} saves it`
  return `the if at ${where} does not save it on every path`
}

/**
 * Names saved anywhere in a block (not inside fanout branches, whose names stay there).
 *
 * @example
 * collectSaved([{ op: 'models_call', saveAs: 'draft' }]) // Set { 'draft' }
 */
export function collectSaved(steps: unknown): Set<string> {
  const names = new Set<string>()
  if (!Array.isArray(steps)) return names
  for (const item of steps) {
    const step = record(item)
    if (!step) continue
    if (typeof step.saveAs === 'string') names.add(step.saveAs)
    for (const field of ['then', 'else', 'do']) {
      for (const name of collectSaved(step[field])) names.add(name)
    }
  }
  return names
}
