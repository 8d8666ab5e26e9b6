import { Budget, type BudgetLimits } from '@baton/core'

type Path = (string | number)[]

const BUDGET_KEYS: { key: keyof BudgetLimits; written: string[]; unit: string }[] = [
  { key: 'calls', written: ['calls'], unit: 'calls' },
  { key: 'costUsd', written: ['costUsd', 'cost'], unit: 'USD' },
  { key: 'tokens', written: ['tokens'], unit: 'tokens' },
  { key: 'maxWallMs', written: ['maxWallMs', 'seconds'], unit: 'ms' },
]

/** A budget as written, normalized; undefined when it is not one (the schema reports that). */
export function parseStepBudget(value: unknown): BudgetLimits | undefined {
  const result = Budget.safeParse(value)
  return result.success ? result.data : undefined
}

/**
 * A step's budget may ask for less than the plan's budget has, never more: one issue per
 * limit it passes, at the field as it is spelled (`cost` or `costUsd`).
 *
 * @example
 * stepBudgetIssues({ cost: 2 }, ['steps', 0, 'budget'], { costUsd: 0.5 })
 * // [{ path: ['steps', 0, 'budget', 'cost'], message: 'asks for 2 USD (costUsd) but …' }]
 */
export function stepBudgetIssues(
  value: unknown,
  path: Path,
  planBudget: BudgetLimits | undefined,
): { path: Path; message: string }[] {
  const asked = parseStepBudget(value)
  const written =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  if (!asked || !planBudget || !written) return []
  const issues: { path: Path; message: string }[] = []
  for (const { key, written: spellings, unit } of BUDGET_KEYS) {
    const want = asked[key]
    const have = planBudget[key]
    if (want === undefined || have === undefined || want <= have + 1e-9) continue
    const field = spellings.find((spelling) => spelling in written) ?? key
    issues.push({
      path: [...path, field],
      message: `asks for ${want} ${unit} (${key}) but the plan's budget has only ${have}; a step may ask for less than the plan has, never more`,
    })
  }
  return issues
}
