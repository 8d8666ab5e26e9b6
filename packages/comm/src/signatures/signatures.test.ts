import { toHighS } from '@baton/core'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { createMessageBus } from '../bus/create-message-bus'
import type { DeliveryError } from '../bus/delivery-error'
import { createEnvelope } from '../envelope/create-envelope'
import type { Envelope } from '../envelope/envelope'
import type { Transport } from '../rails/transport'
import { signEnvelope } from './sign-envelope'
import { SignatureError } from './signature-error'
import { verifyEnvelope } from './verify-envelope'

const ops = privateKeyToAccount(generatePrivateKey())
const mallory = privateKeyToAccount(generatePrivateKey())
const wallets = new Map([['ops', ops.address]])

function draft(): Envelope {
  return createEnvelope({ from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'pay 5' })
}

function securedBus() {
  const bus = createMessageBus({
    requireSignatures: true,
    resolveWallet: (agentId) => wallets.get(agentId),
  })
  const received: Envelope[] = []
  bus.subscribe('analyst', (message) => {
    received.push(message)
  })
  return { bus, received }
}

describe('signEnvelope / verifyEnvelope', () => {
  it('refuses the high-s twin of a valid signature', async () => {
    const signed = await signEnvelope(draft(), ops)
    const twin = { ...signed, signature: toHighS(signed.signature as `0x${string}`) }
    expect(await verifyEnvelope(twin, ops.address)).toBe(false)
    const { bus, received } = securedBus()
    await expect(bus.send(twin)).rejects.toMatchObject({
      name: 'SignatureError',
      problem: 'high-s',
    })
    expect(received).toEqual([])
  })

  it('verifies a signed envelope against its signer only', async () => {
    const signed = await signEnvelope(draft(), ops)
    expect(signed.signature).toMatch(/^0x[0-9a-f]{130}$/)
    expect(await verifyEnvelope(signed, ops.address)).toBe(true)
    expect(await verifyEnvelope(signed, ops.address.toLowerCase())).toBe(true)
    expect(await verifyEnvelope(signed, mallory.address)).toBe(false)
  })

  it('fails verification when any field changes after signing, or the key order changes nothing', async () => {
    const signed = await signEnvelope(draft(), ops)
    expect(await verifyEnvelope({ ...signed, content: 'pay 500' }, ops.address)).toBe(false)
    expect(await verifyEnvelope({ ...signed, hop: 1 }, ops.address)).toBe(false)
    expect(
      await verifyEnvelope(
        { ...signed, from: { agentId: 'ops', agentRole: 'admin' } },
        ops.address,
      ),
    ).toBe(false)
    const reordered = Object.fromEntries(Object.entries(signed).reverse()) as Envelope
    expect(await verifyEnvelope(reordered, ops.address)).toBe(true)
    expect(await verifyEnvelope(draft(), ops.address)).toBe(false)
    expect(await verifyEnvelope({ ...signed, signature: '0x1234' }, ops.address)).toBe(false)
  })
  it('throws a typed error for a malformed wallet or a value that is not an envelope', async () => {
    const signed = await signEnvelope(draft(), ops)
    await expect(verifyEnvelope(signed, '0x1234')).rejects.toMatchObject({
      code: 'MALFORMED_WALLET',
    })
    const broken = { ...signed, hop: -1 }
    const error = await verifyEnvelope(broken, ops.address).catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED' })
    expect((error as Error).message).toContain('hop')
    await expect(signEnvelope({ ...draft(), correlationId: '' }, ops)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    })
    await expect(
      signEnvelope(draft(), { address: ops.address } as unknown as typeof ops),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' })
  })
})

describe('createMessageBus with requireSignatures', () => {
  it('delivers a correctly signed envelope', async () => {
    const { bus, received } = securedBus()
    const signed = await signEnvelope(draft(), ops)
    await expect(bus.send(signed)).resolves.toEqual(signed)
    expect(received).toEqual([signed])
    await bus.close()
  })

  it('refuses an unsigned envelope and delivers nothing', async () => {
    const { bus, received } = securedBus()
    const error = await bus.send(draft()).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(SignatureError)
    expect(error).toMatchObject({ code: 'SIGNATURE_INVALID', problem: 'missing' })
    expect((error as SignatureError).message).toContain('not signed')
    await expect(
      bus.send({ from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'hi' }),
    ).rejects.toMatchObject({ problem: 'missing' })
    expect(received).toEqual([])
    await bus.close()
  })

  it('refuses a tampered envelope and delivers nothing', async () => {
    const { bus, received } = securedBus()
    const signed = await signEnvelope(draft(), ops)
    await expect(bus.send({ ...signed, content: 'pay 5000' })).rejects.toMatchObject({
      code: 'SIGNATURE_INVALID',
      problem: 'mismatch',
    })
    expect(received).toEqual([])
    expect(bus.history(signed.correlationId)).toEqual([])
    await bus.close()
  })

  it('refuses an envelope forged with another key, and one from an unknown sender', async () => {
    const { bus, received } = securedBus()
    const forged = await signEnvelope(draft(), mallory)
    await expect(bus.send(forged)).rejects.toMatchObject({ problem: 'mismatch' })
    const stranger = await signEnvelope(
      createEnvelope({ from: { agentId: 'stranger' }, to: { agentId: 'analyst' }, content: 'x' }),
      mallory,
    )
    await expect(bus.send(stranger)).rejects.toMatchObject({ problem: 'unknown-sender' })
    expect(received).toEqual([])
    await bus.close()
  })

  it('signs what it builds for agents it holds keys for, so forwards pass too', async () => {
    const analyst = privateKeyToAccount(generatePrivateKey())
    const keys = new Map([
      ['ops', ops],
      ['analyst', analyst],
    ])
    const bus = createMessageBus({
      requireSignatures: true,
      resolveWallet: (agentId) => keys.get(agentId)?.address,
      resolveAccount: (agentId) => keys.get(agentId),
    })
    const received: Envelope[] = []
    bus.subscribe('reviewer', (message) => {
      received.push(message)
    })
    const first = await bus.send({
      from: { agentId: 'ops' },
      to: { agentId: 'analyst' },
      content: 'x',
    })
    const forwarded = await bus.forward(first, 'reviewer')
    expect(await verifyEnvelope(forwarded, analyst.address)).toBe(true)
    expect(received).toEqual([forwarded])
    await bus.close()
  })

  it('names the agent whose configured wallet is malformed', async () => {
    const bus = createMessageBus({ requireSignatures: true, resolveWallet: () => '0xnot-a-wallet' })
    const error = await bus
      .send(await signEnvelope(draft(), ops))
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'MALFORMED_WALLET' })
    expect((error as Error).message).toContain('agent "ops"')
    await bus.close()
  })

  it('refuses a forged envelope that arrives over a rail, reporting it', async () => {
    let receive: ((raw: unknown) => Promise<void>) | undefined
    const rail: Transport = {
      name: 'test',
      async start(receiver) {
        receive = receiver
      },
      async publish() {},
      async close() {},
    }
    const errors: DeliveryError[] = []
    const bus = createMessageBus({
      transport: rail,
      requireSignatures: true,
      resolveWallet: (agentId) => wallets.get(agentId),
      onDeliveryError: (error) => errors.push(error),
    })
    const received: Envelope[] = []
    bus.subscribe('analyst', (message) => {
      received.push(message)
    })
    await bus.ready()
    await receive?.(await signEnvelope(draft(), mallory))
    expect(received).toEqual([])
    expect(errors).toHaveLength(1)
    expect(errors[0]?.cause).toBeInstanceOf(SignatureError)
    const genuine = await signEnvelope(draft(), ops)
    await receive?.(genuine)
    expect(received).toEqual([genuine])
    await bus.close()
  })

  it('accepts a signed envelope once: a replay is refused even after retention dropped it', async () => {
    let now = Date.now()
    const bus = createMessageBus({
      requireSignatures: true,
      resolveWallet: (agentId) => wallets.get(agentId),
      retention: { maxMessages: 1 },
      now: () => now,
    })
    const received: Envelope[] = []
    bus.subscribe('analyst', (message) => {
      received.push(message)
    })
    const pay = await signEnvelope(
      createEnvelope(
        { from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'pay 5' },
        { now: () => now },
      ),
      ops,
    )
    await bus.relay(pay)
    await bus.relay(
      await signEnvelope(
        createEnvelope(
          { from: { agentId: 'ops' }, to: { agentId: 'analyst' }, content: 'other' },
          { now: () => now },
        ),
        ops,
      ),
    )
    expect(bus.history(pay.correlationId)).toEqual([])
    now += 2_000
    const replay = await bus.send(pay).catch((caught: unknown) => caught)
    expect(replay).toBeInstanceOf(SignatureError)
    expect(replay).toMatchObject({ code: 'SIGNATURE_REPLAYED', problem: 'replayed' })
    expect(received.filter((message) => message.content === 'pay 5')).toHaveLength(1)
    await bus.close()
  })

  it('refuses a signed envelope dated outside the freshness window, either way', async () => {
    const { bus, received } = securedBus()
    const dated = (iso: string) => signEnvelope({ ...draft(), createdAt: iso }, ops)
    const old = await bus.send(await dated('2001-09-09T01:46:40.000Z')).catch((caught) => caught)
    expect(old).toBeInstanceOf(SignatureError)
    expect(old).toMatchObject({ code: 'SIGNATURE_STALE', problem: 'stale' })
    expect((old as SignatureError).message).toContain('2001-09-09')
    const future = new Date(Date.now() + 10 * 60_000).toISOString()
    await expect(bus.send(await dated(future))).rejects.toMatchObject({ code: 'SIGNATURE_STALE' })
    // inside the window (default five minutes) it is delivered
    const recent = await dated(new Date(Date.now() - 4 * 60_000).toISOString())
    await expect(bus.send(recent)).resolves.toEqual(recent)
    expect(received).toEqual([recent])
    await bus.close()
  })

  it('takes the freshness window from signatureMaxAgeMs', async () => {
    const bus = createMessageBus({
      requireSignatures: true,
      resolveWallet: (agentId) => wallets.get(agentId),
      signatureMaxAgeMs: 1_000,
    })
    const signed = await signEnvelope(
      { ...draft(), createdAt: new Date(Date.now() - 5_000).toISOString() },
      ops,
    )
    await expect(bus.send(signed)).rejects.toMatchObject({ code: 'SIGNATURE_STALE' })
    expect(() => createMessageBus({ signatureMaxAgeMs: 0 })).toThrow(/signatureMaxAgeMs/)
    await bus.close()
  })

  it('refuses a signed envelope replayed over a rail, reporting it', async () => {
    let receive: ((raw: unknown) => Promise<void>) | undefined
    const errors: DeliveryError[] = []
    const bus = createMessageBus({
      transport: {
        name: 'test',
        async start(receiver) {
          receive = receiver
        },
        async publish() {},
        async close() {},
      },
      requireSignatures: true,
      resolveWallet: (agentId) => wallets.get(agentId),
      retention: { maxMessages: 1 },
      onDeliveryError: (error) => errors.push(error),
    })
    const received: Envelope[] = []
    bus.subscribe('analyst', (message) => {
      received.push(message)
    })
    await bus.ready()
    const genuine = await signEnvelope(draft(), ops)
    await receive?.(genuine)
    for (let index = 0; index < 3; index += 1) await receive?.(await signEnvelope(draft(), ops))
    await receive?.(genuine)
    expect(received.filter((message) => message.id === genuine.id)).toHaveLength(1)
    expect(errors.map((error) => (error.cause as SignatureError).code)).toEqual([
      'SIGNATURE_REPLAYED',
    ])
    await bus.close()
  })
})
