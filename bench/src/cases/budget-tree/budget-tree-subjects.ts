import { createBudget } from '@baton/core'
import { benchWallet } from '../../fixtures'
import { formatNumber } from '../../report/format-number'
import type { Subjects } from '../types'
import { treeShape } from './budget-tree-case'

const CHARGE = { calls: 1, tokens: 3, costUsd: 0.000_001_7 }

/** Runs `children` concurrent loops of `charges` awaited charges each; returns charges/s. */
async function concurrently(
  children: number,
  charges: number,
  charge: (child: number) => void,
): Promise<number> {
  const started = performance.now()
  await Promise.all(
    Array.from({ length: children }, async (_, child) => {
      for (let index = 0; index < charges; index += 1) {
        // Each charge is its own turn of the event loop, so the children interleave.
        await null
        charge(child)
      }
    }),
  )
  return (children * charges) / ((performance.now() - started) / 1000)
}

/** Books kept by the parent and by each child, under concurrent charges. */
export const budgetTreeSubjects: Subjects = {
  async bare(size) {
    const { children, charges } = treeShape(size)
    const parent = { calls: 0, tokens: 0, costUsd: 0 }
    const own = Array.from({ length: children }, () => ({ calls: 0, tokens: 0, costUsd: 0 }))
    const rate = await concurrently(children, charges, (child) => {
      for (const books of [own[child]!, parent]) {
        books.calls += CHARGE.calls
        books.tokens += CHARGE.tokens
        books.costUsd += CHARGE.costUsd
      }
    })
    return { value: rate }
  },

  async baton(size) {
    const { children, charges } = treeShape(size)
    // A warm-up tree, so the timed one runs on optimized code.
    const warm = createBudget()
    const warmChildren = Array.from({ length: 10 }, () => warm.child())
    await concurrently(10, charges, (child) => warmChildren[child]!.charge(CHARGE))

    const parent = createBudget({}, { name: 'bench' })
    const tree = Array.from({ length: children }, (_, index) =>
      parent.child({}, { name: `c${index}` }),
    )
    const rate = await concurrently(children, charges, (child) =>
      tree[child]!.charge(CHARGE, { wallet: benchWallet }),
    )
    const spent = parent.spent()
    const sum = tree.reduce(
      (total, child) => {
        const own = child.spent()
        return {
          calls: total.calls + own.calls,
          tokens: total.tokens + own.tokens,
          costUsd: total.costUsd + own.costUsd,
        }
      },
      { calls: 0, tokens: 0, costUsd: 0 },
    )
    const expectedCalls = children * charges
    const booksBalance =
      spent.calls === sum.calls &&
      spent.calls === expectedCalls &&
      spent.tokens === sum.tokens &&
      Math.abs(spent.costUsd - sum.costUsd) < 1e-9
    return {
      value: rate,
      text: `${formatNumber(rate)} (books ${booksBalance ? 'balance' : `differ: parent ${spent.calls} calls $${spent.costUsd}, children ${sum.calls} calls $${sum.costUsd}`})`,
      details: {
        booksBalance,
        parentCalls: spent.calls,
        parentCostUsd: spent.costUsd,
        childrenCostUsd: sum.costUsd,
      },
    }
  },
}
