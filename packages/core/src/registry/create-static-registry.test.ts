import { describe, expect, it } from 'vitest'
import { ValidationError } from '../errors/baton-error'
import { Agent } from '../schemas/agent'
import { MalformedWalletError } from '../wallet/malformed-wallet-error'
import { agentRecord, analystWallet, reviewerWallet } from './__fixtures__/agents'
import { createStaticRegistry } from './create-static-registry'
import type { RegistryClient } from './registry-client'
import { UnregisteredAgentError } from './unregistered-agent-error'

const reviewer = agentRecord({ id: 'reviewer', wallet: reviewerWallet.toLowerCase() })

describe('createStaticRegistry', () => {
  it('resolves a listed agent by any spelling of its wallet', async () => {
    const registry: RegistryClient = createStaticRegistry([agentRecord(), reviewer])
    const agent = await registry.ensureRegisteredAgent(
      reviewerWallet.toUpperCase().replace('0X', '0x'),
    )
    expect(agent).toMatchObject({ id: 'reviewer', wallet: reviewerWallet, provider: 'offline' })
    expect((await registry.ensureRegisteredAgent(analystWallet.toLowerCase())).id).toBe(
      'incident-analyst',
    )
  })

  it('accepts agents that were already parsed', async () => {
    const parsed = Agent.parse(agentRecord())
    const registry = createStaticRegistry([parsed])
    expect(await registry.ensureRegisteredAgent(analystWallet)).toEqual(parsed)
  })

  it('hands out a frozen agent, so no caller can change what the next look-up returns', async () => {
    const config = { limits: { depth: 2 } }
    const registry = createStaticRegistry([agentRecord({ config })])
    const agent = await registry.ensureRegisteredAgent(analystWallet)
    expect(() => (agent.tools as string[]).push('rm_rf')).toThrow(TypeError)
    expect(() => {
      ;(agent as { model: string }).model = 'openai:gpt-4o'
    }).toThrow(TypeError)
    expect(Object.isFrozen(agent.agentCard)).toBe(true)
    const again = await registry.ensureRegisteredAgent(analystWallet)
    expect(again.tools).not.toContain('rm_rf')
    expect(again.model).toBe('offline:default')
    // The caller's own objects stay theirs to change.
    expect(Object.isFrozen(config.limits)).toBe(false)
  })

  it('refuses an unknown wallet as unregistered', async () => {
    const registry = createStaticRegistry([agentRecord()])
    const error = await registry.ensureRegisteredAgent(reviewerWallet).catch((error) => error)
    expect(error).toBeInstanceOf(UnregisteredAgentError)
    expect(error).toMatchObject({ code: 'UNREGISTERED_AGENT', wallet: reviewerWallet })
  })

  it('refuses a missing wallet as unregistered and a malformed one as malformed', async () => {
    const registry = createStaticRegistry([agentRecord()])
    await expect(registry.ensureRegisteredAgent(undefined)).rejects.toBeInstanceOf(
      UnregisteredAgentError,
    )
    await expect(registry.ensureRegisteredAgent('0x1234')).rejects.toBeInstanceOf(
      MalformedWalletError,
    )
  })

  it('refuses a list with an invalid or duplicated agent, naming where', () => {
    let caught: unknown
    try {
      createStaticRegistry([
        agentRecord(),
        agentRecord({ id: 'second', model: 'no-provider' }),
        agentRecord({ id: 'third', wallet: analystWallet.toLowerCase() }),
      ])
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ValidationError)
    expect((caught as ValidationError).issues.map((issue) => issue.path)).toEqual([
      '[1].model',
      '[2].wallet',
    ])
  })
})
