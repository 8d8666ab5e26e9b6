import { signAgentChange, signAgentRegistration } from '@baton/core'
import type { FastifyInstance } from 'fastify'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newAgentAccounts } from '../__fixtures__/signed-agents'
import { createTestApp } from '../__fixtures__/test-app'
import { testRegistryId } from '../settings'

let app: FastifyInstance
beforeAll(async () => {
  app = await createTestApp()
})
afterAll(async () => {
  await app.close()
})

const rpc = async (agentId: string, method: string, params: Record<string, unknown>) => {
  const response = await app.inject({
    method: 'POST',
    url: `/a2a/${agentId}`,
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return response.json() as { result?: Record<string, unknown>; error?: { code: number } }
}

const send = async (agentId: string, text: string) => {
  const answer = await rpc(agentId, 'SendMessage', {
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
  })
  return (answer.result?.task as { id: string } | undefined)?.id ?? ''
}

const listedIds = async (agentId: string) =>
  (((await rpc(agentId, 'ListTasks', {})).result?.tasks ?? []) as { id: string }[]).map(
    ({ id }) => id,
  )

async function register(accounts: ReturnType<typeof newAgentAccounts>) {
  const body = await signAgentRegistration(accounts.agent, {
    ...accounts,
    registry: testRegistryId,
  })
  const response = await app.inject({ method: 'POST', url: '/api/v1/agents', payload: body })
  expect(response.statusCode).toBe(201)
}

async function revoke(accounts: ReturnType<typeof newAgentAccounts>) {
  const body = await signAgentChange('revoke', accounts.agent, {
    creator: accounts.creator,
    registry: testRegistryId,
  })
  const response = await app.inject({
    method: 'DELETE',
    url: `/api/v1/agents/${accounts.agent.wallet}`,
    payload: body,
  })
  expect(response.statusCode).toBe(200)
}

describe('A2A tasks belong to a registration, not to a reusable agent id', () => {
  it('a revoked agent’s id registered again by another creator sees none of its tasks', async () => {
    const victim = newAgentAccounts('payroll')
    await register(victim)
    const secrets = [await send('payroll', 'the PIN is 4711'), await send('payroll', 'salaries')]
    expect(await listedIds('payroll')).toEqual(expect.arrayContaining(secrets))
    await revoke(victim)

    const attacker = newAgentAccounts('payroll')
    await register(attacker)
    expect(await listedIds('payroll')).toEqual([])
    for (const id of secrets) {
      expect((await rpc('payroll', 'GetTask', { id })).error).toMatchObject({ code: -32001 })
    }
    // The new registration's own tasks are its own.
    const own = await send('payroll', 'mine')
    expect(await listedIds('payroll')).toEqual([own])
  })

  it('holds when the same agent wallet is registered again under another creator', async () => {
    const first = newAgentAccounts('ledger-bot')
    await register(first)
    const old = await send('ledger-bot', 'old history')
    await revoke(first)
    const creator = privateKeyToAccount(generatePrivateKey())
    await register({ ...first, creator, agent: { ...first.agent, creator: creator.address } })
    expect(await listedIds('ledger-bot')).toEqual([])
    expect((await rpc('ledger-bot', 'GetTask', { id: old })).error).toMatchObject({ code: -32001 })
  })
})
