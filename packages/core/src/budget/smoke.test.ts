import { describe, expect, it } from 'vitest'
import { createBudget, parseWallet } from '../index'

describe('smoke', () => {
  it('charges the chain', () => {
    const root = createBudget({ calls: 3, cost: 1 })
    const child = root.child({ calls: 2 })
    child.charge({ calls: 1, costUsd: 0.5 })
    expect(root.spent().calls).toBe(1)
    expect(() => child.charge({ calls: 1, costUsd: 0.6 })).toThrow(/costUsd/)
    expect(root.spent().costUsd).toBe(0.5)
    expect(parseWallet('0x52908400098527886e0f7030069857d2e4169ee7')).toBe(
      '0x52908400098527886E0F7030069857D2E4169EE7',
    )
  })
})
