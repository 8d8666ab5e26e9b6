// 1000 concurrent children charging one parent 100 times each: how many charges per second the
// tree takes, and whether the parent's books equal the sum of its children's.
import { createBudget } from '../src'
import { fromUsdUnits, toUsdUnits } from '../src/money/usd-units'

export async function budgetTree(children = 1000, charges = 100): Promise<void> {
  const parent = createBudget({ calls: children * charges, cost: 1e6 }, { name: 'parent' })
  const cost = 0.0000215
  const started = performance.now()
  const cpu = process.cpuUsage()
  await Promise.all(
    Array.from({ length: children }, async (_, index) => {
      const child = parent.child({}, { name: `child-${index}` })
      for (let i = 0; i < charges; i++) {
        const reservation = child.reserve({ calls: 1, tokens: 100, costUsd: cost * 2 })
        // Let the other children in between a reservation and its settlement.
        if (i % 10 === 0) await Promise.resolve()
        reservation.settle({ calls: 1, tokens: 43, costUsd: cost })
      }
      return child
    }),
  )
  const { user, system } = process.cpuUsage(cpu)
  const seconds = (performance.now() - started) / 1000
  const total = children * charges
  const books = parent.spent()
  const exact =
    books.calls === total &&
    books.tokens === total * 43 &&
    books.costUsd === fromUsdUnits(toUsdUnits(cost) * BigInt(total))
  console.log(
    `budget tree (${children} children × ${charges})      ${(total / seconds).toFixed(0).padStart(9)} reserve+settle/s  ${((user + system) / total).toFixed(2)} µs CPU each  parent books = sum of children: ${exact ? 'yes' : `NO (${JSON.stringify(books)})`}`,
  )
}

if (import.meta.url === `file://${process.argv[1]}`) await budgetTree()
