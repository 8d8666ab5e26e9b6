import { describe, expect, it } from 'vitest'
import { BatonError } from '../errors/baton-error'
import { BudgetCancelledError, BudgetExceededError } from './budget-errors'
import { type Budget, createBudget, followsSignal } from './create-budget'

const analyst = '0x52908400098527886E0F7030069857D2E4169EE7'
const reviewer = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359'

function thrown(action: () => unknown): BatonError {
  try {
    action()
  } catch (error) {
    if (BatonError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected the action to throw')
}

/** A chain of `depth` budgets under `root`, each all its parent has left: [root, ..., deepest]. */
function chain(root: Budget, depth: number): Budget[] {
  const budgets = [root]
  for (let level = 1; level <= depth; level += 1) budgets.push(budgets.at(-1)!.child())
  return budgets
}

// Charges are recorded where they are made and rolled up into ancestors when these are read;
// a budget with no limits is not visited by checks. These tests read the books in every order
// a caller may, and put limited budgets between unlimited ones.
describe('createBudget: deep trees', () => {
  it("keeps every ancestor's books exact in a 1000-deep chain, whichever level is read first", () => {
    const budgets = chain(createBudget(), 1000)
    // Level i charges i calls, i tokens and $0.1 (sums of 0.1 drift in floating point, not here).
    const order = [1000, 1, 500, 999, 2, 250, 750, 3]
    for (const level of order) {
      budgets[level]!.charge(
        { calls: level, tokens: level, costUsd: 0.1 },
        { wallet: level % 2 === 0 ? analyst : reviewer },
      )
      // Reading a middle level in between takes in part of the chain only.
      expect(budgets[500]!.spent().calls).toBe(
        order
          .slice(0, order.indexOf(level) + 1)
          .filter((charged) => charged >= 500)
          .reduce((sum, charged) => sum + charged, 0),
      )
    }
    for (const level of [0, 3, 250, 499, 500, 501, 999, 1000]) {
      const below = order.filter((charged) => charged >= level)
      const spent = budgets[level]!.spent()
      expect(spent.calls).toBe(below.reduce((sum, charged) => sum + charged, 0))
      expect(spent.tokens).toBe(spent.calls)
      expect(spent.costUsd).toBe(Number((below.length / 10).toFixed(1)))
      const byWallet = budgets[level]!.spentByWallet()
      const even = below.filter((charged) => charged % 2 === 0)
      const odd = below.filter((charged) => charged % 2 === 1)
      expect(byWallet[analyst]?.calls).toBe(
        even.length === 0 ? undefined : even.reduce((sum, charged) => sum + charged, 0),
      )
      expect(byWallet[reviewer]?.calls).toBe(
        odd.length === 0 ? undefined : odd.reduce((sum, charged) => sum + charged, 0),
      )
    }
  })

  it('keeps the books of a root read only at the end, with thousands of children charged', () => {
    const root = createBudget()
    const children = Array.from({ length: 3000 }, () => root.child())
    for (const [index, child] of children.entries()) {
      child.child().charge({ calls: 1, tokens: index, costUsd: 0.000_001 }, { wallet: analyst })
    }
    const expectedTokens = (3000 * 2999) / 2
    expect(root.spent()).toMatchObject({ calls: 3000, tokens: expectedTokens, costUsd: 0.003 })
    expect(root.spentByWallet()[analyst]).toEqual({
      calls: 3000,
      tokens: expectedTokens,
      costUsd: 0.003,
    })
    expect(children[1234]!.spent().tokens).toBe(1234)
  })

  it('refuses at a limited budget between unlimited ones, naming it, and aborts those below', () => {
    const top = chain(createBudget({}, { name: 'top' }), 5)
    const capped = top.at(-1)!.child({ calls: 3, cost: 0.3 }, { name: 'capped' })
    // Each budget below takes a copy of what `capped` had left when it was made.
    const below = chain(capped, 5)
    const deepest = below.at(-1)!
    deepest.charge({ calls: 1, costUsd: 0.1 })
    capped.child().charge({ calls: 1, costUsd: 0.1 })
    top[2]!.charge({ calls: 50, costUsd: 5 })
    expect(deepest.remaining()).toMatchObject({ calls: 1, costUsd: 0.1 })
    // Within its own copy, past what `capped` has left since its sibling spent.
    const refused = thrown(() => deepest.charge({ calls: 1, costUsd: 0.15 }))
    expect(refused).toBeInstanceOf(BudgetExceededError)
    expect(refused).toMatchObject({ budget: 'capped', dimension: 'costUsd' })
    // A refused charge aborts the budget that made it; its ancestors go on.
    expect(deepest.aborted).toBe(true)
    expect(capped.aborted).toBe(false)
    // Used up by another charge below it: `capped` aborts with its own reason, and so does
    // every budget below it; the unlimited budgets above it go on.
    below[2]!.child().charge({ calls: 1, costUsd: 0.05 })
    expect(capped.signal.reason).toMatchObject({ budget: 'capped', dimension: 'calls' })
    expect(below[1]!.signal.reason).toBe(capped.signal.reason)
    expect(top.at(-1)!.aborted).toBe(false)
    expect(top[0]!.spent()).toMatchObject({ calls: 53, costUsd: 5.25 })
    expect(top.at(-1)!.spent()).toMatchObject({ calls: 3, costUsd: 0.25 })
  })

  it('holds a deep reservation against a limited ancestor until it is released', async () => {
    const root = createBudget({ cost: 1 }, { name: 'root' })
    const deep = chain(root.child({ cost: 0.8 }, { name: 'team' }), 20).at(-1)!
    const sibling = chain(root, 20).at(-1)!
    const held = deep.reserve({ costUsd: 0.7 })
    expect(sibling.remaining().costUsd).toBeCloseTo(0.3, 12)
    expect(thrown(() => sibling.reserve({ costUsd: 0.5 }))).toMatchObject({ budget: 'root' })
    const released = sibling.nextRelease()
    expect(released).toBeInstanceOf(Promise)
    held.settle({ costUsd: 0.2 })
    await released
    expect(sibling.remaining().costUsd).toBeCloseTo(0.8, 12)
    expect(deep.remaining().costUsd).toBeCloseTo(0.6, 12)
    expect(root.spent().costUsd).toBe(0.2)
    expect(sibling.nextRelease()).toBeUndefined()
  })

  it('reaches a deadline set between unlimited budgets from any budget below it', () => {
    let now = 0
    const root = createBudget({}, { now: () => now })
    const timed = chain(root, 3).at(-1)!.child({ seconds: 1 }, { name: 'timed' })
    const deepest = chain(timed, 10).at(-1)!
    expect(deepest.remaining().wallMs).toBe(1000)
    now = 1000
    expect(deepest.aborted).toBe(true)
    expect(timed.signal.reason).toMatchObject({ budget: 'timed', dimension: 'wallMs' })
    expect(root.aborted).toBe(false)
  })

  it('stops calling onCharge listeners once they are removed, anywhere in the tree', () => {
    const budgets = chain(createBudget(), 50)
    const heard: string[] = []
    const stopTop = budgets[0]!.onCharge((event) => heard.push(`top ${event.budget}`))
    const stopMiddle = budgets[25]!.onCharge((event) => heard.push(`middle ${event.budget}`))
    budgets[50]!.charge({ calls: 1 })
    expect(heard).toEqual([`middle ${budgets[50]!.name}`, `top ${budgets[50]!.name}`])
    expect(stopMiddle()).toBe(true)
    expect(stopMiddle()).toBe(false)
    budgets[30]!.charge({ calls: 1 })
    expect(heard.at(-1)).toBe(`top ${budgets[30]!.name}`)
    stopTop()
    budgets[50]!.charge({ calls: 1 })
    expect(heard).toHaveLength(3)
  })
})

describe('followsSignal of a view', () => {
  it('is true for a budget that shows its signal as its own, whatever its parent', () => {
    const root = createBudget()
    const inner = root.child().child()
    // A view of a budget (a wrapper that forwards to it) has the inner budget's signal, and the
    // inner budget's parent as its parent: the signal is still the one it aborts with.
    const view = Object.create(null, {
      signal: { get: () => inner.signal },
      parent: { get: () => inner.parent },
    }) as Budget
    expect(followsSignal(view, inner.signal)).toBe(true)
    expect(followsSignal(view, root.signal)).toBe(true)
    expect(followsSignal(view, createBudget().signal)).toBe(false)
    inner.cancel('done')
    expect(view.signal.reason).toBeInstanceOf(BudgetCancelledError)
  })
})
