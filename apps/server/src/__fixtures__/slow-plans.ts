/** Wallets of the demo's analyst, reviewer and tester (every test server seeds the demo). */
export const demoWallets = {
  analyst: '0x1111111111111111111111111111111111111111',
  reviewer: '0x2222222222222222222222222222222222222222',
  tester: '0x3333333333333333333333333333333333333333',
} as const

/**
 * An offline plan named `name` of `steps` delegate steps, each asking a demo agent (the
 * analyst and the reviewer in turn: one charged call) and waiting `ms`.
 *
 * @example
 * await post(`${server.url}/api/v1/runs`, { plan: slowDelegatePlan({ name: 'slow', ms: 20, steps: 2 }) })
 */
export function slowDelegatePlan(options: { name: string; ms: number; steps: number }) {
  return {
    name: options.name,
    steps: Array.from({ length: options.steps }, (_, index) => ({
      op: 'delegate',
      saveAs: `s${index}`,
      agentWallet: index % 2 === 0 ? demoWallets.analyst : demoWallets.reviewer,
      prompt: `[[sleep:${options.ms}]] step ${index}`,
    })),
  }
}

/**
 * A plan whose second step spends at once (the reviewer) and then waits `waitMs` on `waiter`:
 * a process killed in that wait dies mid-step, after the step has spent.
 *
 * @example
 * const plan = cutShortPlan({ name: 'cut-short', waiter: demoWallets.tester, waitMs: 6000 })
 */
export function cutShortPlan(options: { name: string; waiter: string; waitMs: number }) {
  const { analyst, reviewer } = demoWallets
  return {
    name: options.name,
    steps: [
      { op: 'delegate', saveAs: 'a', agentWallet: analyst, prompt: '[[sleep:100]] first' },
      {
        op: 'if',
        cond: 'true',
        // biome-ignore lint/suspicious/noThenProperty: `then` is the MAL field name.
        then: [
          { op: 'delegate', saveAs: 'b', agentWallet: reviewer, prompt: 'second, at once' },
          {
            op: 'delegate',
            saveAs: 'c',
            agentWallet: options.waiter,
            prompt: `[[sleep:${options.waitMs}]] third`,
          },
        ],
      },
    ],
  }
}
