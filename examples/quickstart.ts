import { createBudget, parseWallet } from '@baton/core'

const budget = createBudget({ calls: 10, cost: 0.5 }, { name: 'quickstart' })
const wallet = parseWallet('0x52908400098527886e0f7030069857d2e4169ee7')
const child = budget.child({ calls: 2 }, { name: 'analyst' })
child.charge({ calls: 1, tokens: 420, costUsd: 0.002 }, { wallet })
console.log('spent', budget.spent(), 'by wallet', budget.spentByWallet())
