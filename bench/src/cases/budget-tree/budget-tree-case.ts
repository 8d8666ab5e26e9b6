import type { BenchCase, Size } from '../types'

/** Children of the one parent, and the charges each makes. */
export const treeShape = (size: Size): { children: number; charges: number } =>
  size === 'full' ? { children: 1000, charges: 100 } : { children: 100, charges: 20 }

/** A budget tree under load: many children charging one parent at once. */
export const budgetTreeCase: BenchCase = {
  name: 'budget',
  work: (size) => {
    const { children, charges } = treeShape(size)
    return `budget tree: ${children} concurrent children charging one parent ${charges} times each, charges/s`
  },
  unit: 'charges/s',
  higherIsBetter: true,
  target: {
    text: "the parent's books = the sum of its children's",
    met: (baton) => baton.details?.booksBalance === true,
  },
  subjects: ['bare', 'baton'],
  load: async () => (await import('./budget-tree-subjects')).budgetTreeSubjects,
}
