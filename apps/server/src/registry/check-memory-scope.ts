import { type Agent, parseWallet, ValidationError } from '@baton/core'

/** `creator:<the creator's wallet>/<name>`: a memory scope named by (and only for) one creator. */
const namedScope = /^creator:(0x[0-9a-fA-F]{40})\/([a-z0-9][a-z0-9_-]{0,63})$/
const walletLike = /^0x[0-9a-fA-F]{40}$/

/** Finds the live agent registered under a (checksummed) wallet. */
export type FindAgent = (wallet: `0x${string}`) => Promise<Agent | undefined>

/**
 * The agent with its `memoryScope` checked and spelled the one way the memory is kept: its
 * own wallet (the default); the wallet of another live agent of the same creator (the two
 * share memory); or `creator:<creator wallet>/<name>` of its own creator (a slug name). Any
 * other scope would let a registrant read and write memory that is not theirs, and is a
 * `ValidationError` on `memoryScope`.
 *
 * @example
 * const agent = await checkMemoryScope(parseWith(Agent, body.agent, 'agent'), (wallet) => repositories.agents.find(wallet))
 */
export async function checkMemoryScope(agent: Agent, findAgent: FindAgent): Promise<Agent> {
  const scope = agent.memoryScope
  const refuse = (message: string) =>
    new ValidationError('agent', [{ path: 'memoryScope', message }])
  if (walletLike.test(scope)) {
    const wallet = parseWallet(scope.toLowerCase())
    if (wallet === agent.wallet) return { ...agent, memoryScope: wallet }
    const owner = await findAgent(wallet)
    if (!owner || owner.creator !== agent.creator) {
      throw refuse(
        `names the wallet ${wallet}, which is not an agent of the same creator (${agent.creator})`,
      )
    }
    return { ...agent, memoryScope: wallet }
  }
  const named = namedScope.exec(scope)
  if (named) {
    const creator = parseWallet(named[1]!.toLowerCase())
    if (creator !== agent.creator) {
      throw refuse(`is a scope of ${creator}, not of this agent's creator (${agent.creator})`)
    }
    return { ...agent, memoryScope: `creator:${creator}/${named[2]}` }
  }
  throw refuse(
    `must be the agent's wallet, the wallet of another agent of its creator, or "creator:${agent.creator}/<name>" (a slug name)`,
  )
}
