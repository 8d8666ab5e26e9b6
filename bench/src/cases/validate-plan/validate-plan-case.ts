import type { BenchCase, Size } from '../types'

/** Steps in the plan validated. */
export const planSteps = (size: Size): number => (size === 'full' ? 1000 : 100)

/** MAL validation of a large plan (`parsePlan` of the plan as an object, and as YAML). */
export const validatePlanCase: BenchCase = {
  name: 'validate',
  work: (size) => `MAL validation of a ${planSteps(size)}-step plan, ms`,
  unit: 'ms',
  target: { text: '≤ 20', met: (baton) => baton.value <= 20 },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./validate-plan-subjects')).validatePlanSubjects,
}
