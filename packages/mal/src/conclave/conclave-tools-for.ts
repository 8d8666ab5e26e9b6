import type { ToolSet } from 'ai'
import type { ConclaveSpace } from './conclave-types'
import { createConclaveTools } from './create-conclave-tools'

// Kept by the run's conclave object, so they go when the run goes.
const made = new WeakMap<ConclaveSpace, Map<string, ToolSet>>()

/**
 * `createConclaveTools` for one run's conclave and one wallet, made once: every `delegate` of
 * a run to the same agent gets the same tools (they keep no state of their own), instead of
 * four new tools and their closures per step.
 *
 * @example
 * const extraTools = conclaveToolsFor(request.conclave, agent.wallet)
 */
export function conclaveToolsFor(conclave: ConclaveSpace, wallet: string): ToolSet {
  let byWallet = made.get(conclave)
  if (!byWallet) {
    byWallet = new Map()
    made.set(conclave, byWallet)
  }
  let tools = byWallet.get(wallet)
  if (!tools) {
    tools = createConclaveTools({ store: conclave.store, space: conclave.space, wallet })
    byWallet.set(wallet, tools)
  }
  return tools
}
