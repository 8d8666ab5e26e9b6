import { ValidationError } from '../errors/baton-error'
import { Agent, type AgentInput } from '../schemas/agent'
import { issuesOf } from '../schemas/parse'
import type { Wallet } from '../wallet/parse-wallet'
import { freezeAgent } from './freeze-agent'
import type { EnsureRegisteredAgentOptions, RegistryClient } from './registry-client'
import { registryWallet } from './registry-wallet'
import { UnregisteredAgentError } from './unregistered-agent-error'

/**
 * An in-memory registry over a fixed list of agents (a local agents file). It answers like
 * the HTTP client: unknown wallets are unregistered, malformed ones are refused.
 *
 * @example
 * const registry = createStaticRegistry(JSON.parse(await readFile('agents.json', 'utf8')))
 * const agent = await registry.ensureRegisteredAgent(step.agentWallet)
 */
export function createStaticRegistry(agents: readonly AgentInput[]): RegistryClient {
  const byWallet = new Map<Wallet, Agent>()
  const issues: { path: string; message: string }[] = []
  agents.forEach((input, index) => {
    const parsed = Agent.safeParse(input)
    if (!parsed.success) {
      for (const issue of issuesOf(parsed.error)) {
        issues.push({
          path: `[${index}]${issue.path ? `.${issue.path}` : ''}`,
          message: issue.message,
        })
      }
      return
    }
    if (byWallet.has(parsed.data.wallet)) {
      issues.push({ path: `[${index}].wallet`, message: `${parsed.data.wallet} is listed twice` })
    }
    // Every look-up hands out this one object: frozen, so no caller can change it for the next
    // (a copy first, so the values the caller passed in `config` are not frozen under it).
    byWallet.set(parsed.data.wallet, freezeAgent(structuredClone(parsed.data)))
  })
  if (issues.length > 0) throw new ValidationError('agents', issues)

  return {
    async ensureRegisteredAgent(input: unknown, options: EnsureRegisteredAgentOptions = {}) {
      const wallet = registryWallet(input)
      options.signal?.throwIfAborted()
      const agent = byWallet.get(wallet)
      if (!agent) {
        throw new UnregisteredAgentError({ wallet, reason: 'it is not in the list of agents' })
      }
      return agent
    },
  }
}
