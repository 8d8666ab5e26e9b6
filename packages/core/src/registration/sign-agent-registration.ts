import { bytesToHex, type LocalAccount } from 'viem'
import type { AgentInput } from '../schemas/agent'
import { parseWallet } from '../wallet/parse-wallet'
import {
  type RegistrationAction,
  type RegistryId,
  registrationContentHash,
  registrationTypedData,
} from './registration-typed-data'

export type SignedProof = {
  /** The registry the change is for (its `GET /api/v1/runtime` `registry`); others refuse it. */
  registry: RegistryId
  /** 32 random bytes, hex; the server refuses a nonce it has seen. */
  nonce: `0x${string}`
  /** Unix seconds; at most five minutes ahead of the server's clock. */
  deadline: number
}

/** The body `POST /api/v1/agents` takes. */
export type AgentRegistrationBody = SignedProof & {
  agent: AgentInput
  creatorSignature: `0x${string}`
  agentSignature: `0x${string}`
}

/** The body `PATCH /api/v1/agents/:wallet` (with `changes`) and `DELETE` (without) take. */
export type AgentChangeBody = SignedProof & {
  changes?: Record<string, unknown>
  signature: `0x${string}`
}

export type SignOptions = {
  /** The id of the registry that will receive the body (`GET /api/v1/runtime` → `registry`). */
  registry: RegistryId
  /** Seconds the signature stays valid (default 120, at most 300). */
  lifetimeSeconds?: number
  /** Clock in ms (default `Date.now`). */
  now?: () => number
  nonce?: `0x${string}`
}

function proof(options: SignOptions): SignedProof {
  const now = options.now ?? Date.now
  const nonce = options.nonce ?? bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(32)))
  return {
    registry: options.registry,
    nonce,
    deadline: Math.floor(now() / 1000) + (options.lifetimeSeconds ?? 120),
  }
}

/**
 * Signs the registration of `agent` by its creator and by the agent's own wallet (proof that
 * whoever registers controls both) for one registry, and returns exactly the JSON body
 * `POST /api/v1/agents` takes. Another registry refuses it.
 *
 * @example
 * const { registry } = await (await fetch(`${server}/api/v1/runtime`)).json()
 * const body = await signAgentRegistration(agent, { creator, agentAccount, registry })
 * await fetch(`${server}/api/v1/agents`, { method: 'POST', body: JSON.stringify(body), headers })
 */
export async function signAgentRegistration(
  agent: AgentInput,
  accounts: { creator: LocalAccount; agentAccount: LocalAccount } & SignOptions,
): Promise<AgentRegistrationBody> {
  const signed = proof(accounts)
  const message = {
    action: 'register' as const,
    wallet: parseWallet(agent.wallet),
    creator: parseWallet(agent.creator),
    contentHash: registrationContentHash(agent),
    nonce: signed.nonce,
    deadline: BigInt(signed.deadline),
  }
  const typedData = registrationTypedData(message, signed.registry)
  const [creatorSignature, agentSignature] = await Promise.all([
    accounts.creator.signTypedData(typedData),
    accounts.agentAccount.signTypedData(typedData),
  ])
  return { agent, creatorSignature, agentSignature, ...signed }
}

/**
 * Signs a change to a registered agent by its creator: `update` with the changed fields
 * (the body of `PATCH /api/v1/agents/:wallet`), or `revoke` (the body of `DELETE`).
 *
 * @example
 * const body = await signAgentChange('update', agent, { creator, registry, changes: { name: 'Analyst 2' } })
 */
export async function signAgentChange(
  action: Exclude<RegistrationAction, 'register'>,
  agent: { wallet: string; creator: string },
  options: { creator: LocalAccount; changes?: Record<string, unknown> } & SignOptions,
): Promise<AgentChangeBody> {
  const signed = proof(options)
  const changes = action === 'update' ? (options.changes ?? {}) : undefined
  const signature = await options.creator.signTypedData(
    registrationTypedData(
      {
        action,
        wallet: parseWallet(agent.wallet),
        creator: parseWallet(agent.creator),
        contentHash: registrationContentHash(changes ?? {}),
        nonce: signed.nonce,
        deadline: BigInt(signed.deadline),
      },
      signed.registry,
    ),
  )
  return { ...(changes ? { changes } : {}), signature, ...signed }
}
