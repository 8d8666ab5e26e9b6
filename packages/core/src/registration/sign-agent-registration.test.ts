import { recoverTypedDataAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from './canonical-json'
import { registrationContentHash, registrationTypedData } from './registration-typed-data'
import { signAgentChange, signAgentRegistration } from './sign-agent-registration'

const registry = `0x${'ab'.repeat(32)}` as const
const otherRegistry = `0x${'cd'.repeat(32)}` as const
const creator = privateKeyToAccount(generatePrivateKey())
const agentAccount = privateKeyToAccount(generatePrivateKey())
const agent = {
  id: 'analyst',
  wallet: agentAccount.address.toLowerCase(),
  creator: creator.address,
  name: 'Analyst',
  type: 'specialist' as const,
  model: 'offline:default',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
}

describe('signAgentRegistration', () => {
  it('returns a body signed by the creator and by the agent wallet over the agent content hash', async () => {
    const body = await signAgentRegistration(agent, {
      creator,
      agentAccount,
      registry,
      now: () => 1_000_000,
    })
    expect(body.agent).toBe(agent)
    expect(body.registry).toBe(registry)
    expect(body.deadline).toBe(1000 + 120)
    const message = {
      action: 'register' as const,
      wallet: agentAccount.address,
      creator: creator.address,
      contentHash: registrationContentHash(agent),
      nonce: body.nonce,
      deadline: BigInt(body.deadline),
    }
    const typedData = registrationTypedData(message, registry)
    expect(await recoverTypedDataAddress({ ...typedData, signature: body.creatorSignature })).toBe(
      creator.address,
    )
    expect(await recoverTypedDataAddress({ ...typedData, signature: body.agentSignature })).toBe(
      agentAccount.address,
    )
    // For another registry the same signature proves nothing about the creator.
    const elsewhere = registrationTypedData(message, otherRegistry)
    expect(
      await recoverTypedDataAddress({ ...elsewhere, signature: body.creatorSignature }),
    ).not.toBe(creator.address)
  })

  it('refuses to sign without a well-formed registry id', async () => {
    await expect(
      signAgentRegistration(agent, { creator, agentAccount, registry: '0x1234' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ path: 'registry' }] })
  })

  it('uses a fresh nonce for every registration', async () => {
    const first = await signAgentRegistration(agent, { creator, agentAccount, registry })
    const second = await signAgentRegistration(agent, { creator, agentAccount, registry })
    expect(first.nonce).not.toBe(second.nonce)
  })
})

describe('signAgentChange', () => {
  it('signs an update over the changed fields, by the creator', async () => {
    const body = await signAgentChange('update', agent, {
      creator,
      registry,
      changes: { name: 'B' },
    })
    const typedData = registrationTypedData(
      {
        action: 'update',
        wallet: agentAccount.address,
        creator: creator.address,
        contentHash: registrationContentHash({ name: 'B' }),
        nonce: body.nonce,
        deadline: BigInt(body.deadline),
      },
      registry,
    )
    expect(await recoverTypedDataAddress({ ...typedData, signature: body.signature })).toBe(
      creator.address,
    )
  })
})

describe('canonicalJson', () => {
  it('spells one value one way whatever the key order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 1, e: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"e":2,"f":1}]},"b":1}',
    )
  })
})
