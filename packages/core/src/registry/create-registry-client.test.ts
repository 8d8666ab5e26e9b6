import { freePort } from '@baton/testing/ports'
import { afterEach, describe, expect, it } from 'vitest'
import { BatonError, ValidationError } from '../errors/baton-error'
import { MalformedWalletError } from '../wallet/malformed-wallet-error'
import { agentRecord, analystWallet, reviewerWallet } from './__fixtures__/agents'
import { json, type RegistryServer, startRegistryServer } from './__fixtures__/registry-server'
import {
  type CreateRegistryClientOptions,
  createRegistryClient as createClient,
} from './create-registry-client'
import { RegistryUnavailableError } from './registry-unavailable-error'
import { UnregisteredAgentError } from './unregistered-agent-error'

/** Tests that are not about the timeout give a busy machine plenty of time to answer. */
function createRegistryClient(options: CreateRegistryClientOptions) {
  return createClient({ timeoutMs: 20_000, ...options })
}

const servers: RegistryServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function serve(handler: Parameters<typeof startRegistryServer>[0]) {
  const server = await startRegistryServer(handler)
  servers.push(server)
  return server
}

/** A registry that knows the analyst only. */
function registryOfAnalyst() {
  return serve((request, response) => {
    if (request.url === `/agent/${analystWallet}`) json(response, 200, agentRecord())
    else json(response, 404, { error: 'not found' })
  })
}

async function rejection(promise: Promise<unknown>): Promise<BatonError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the look-up to fail')
    },
    (error: unknown) => error,
  )
  if (!BatonError.isInstance(error)) throw error
  return error
}

describe('createRegistryClient', () => {
  it('refuses a missing or empty wallet as unregistered, without asking the registry', async () => {
    const server = await registryOfAnalyst()
    const registry = createRegistryClient({ baseUrl: server.url })
    for (const wallet of [undefined, null, '', '   ']) {
      const error = await rejection(registry.ensureRegisteredAgent(wallet))
      expect(error).toBeInstanceOf(UnregisteredAgentError)
      expect(error.code).toBe('UNREGISTERED_AGENT')
    }
    expect(server.requests).toHaveLength(0)
  })

  it('refuses a malformed wallet before any request is made', async () => {
    const server = await registryOfAnalyst()
    const registry = createRegistryClient({ baseUrl: server.url })
    const malformed = [
      '0x52908400098527886e0f7030069857d2e4169ee', // 39 digits
      '52908400098527886e0f7030069857d2e4169ee7', // no 0x
      '0x52908400098527886e0f7030069857d2e4169eeZ',
      '0x52908400098527886E0F7030069857D2E4169ee7', // mixed case, wrong checksum
      42,
    ]
    for (const wallet of malformed) {
      const error = await rejection(registry.ensureRegisteredAgent(wallet))
      expect(error).toBeInstanceOf(MalformedWalletError)
      expect(error.code).toBe('MALFORMED_WALLET')
    }
    expect(server.requests).toHaveLength(0)
  })

  it('resolves the parsed agent on a 200, asking for the checksummed wallet', async () => {
    const server = await registryOfAnalyst()
    const registry = createRegistryClient({ baseUrl: `${server.url}/` })
    const agent = await registry.ensureRegisteredAgent(analystWallet.toLowerCase())
    expect(agent).toMatchObject({
      id: 'incident-analyst',
      wallet: analystWallet,
      provider: 'offline',
      agentCard: { trustTier: 'low', canDelegate: false },
    })
    expect(server.requests).toEqual([
      { method: 'GET', url: `/agent/${analystWallet}`, authorization: undefined },
    ])
  })

  it('keeps the base URL path in front of /agent/{wallet}', async () => {
    const server = await serve((_request, response) => json(response, 200, agentRecord()))
    const registry = createRegistryClient({ baseUrl: `${server.url}/registry/v1/` })
    await registry.ensureRegisteredAgent(analystWallet)
    expect(server.requests[0]?.url).toBe(`/registry/v1/agent/${analystWallet}`)
  })

  it('serves any-case spellings of one wallet from one cache entry', async () => {
    const server = await registryOfAnalyst()
    const registry = createRegistryClient({ baseUrl: server.url })
    const lower = analystWallet.toLowerCase()
    const upper = `0x${analystWallet.slice(2).toUpperCase()}`
    const first = await registry.ensureRegisteredAgent(lower)
    expect(await registry.ensureRegisteredAgent(upper)).toBe(first)
    expect(await registry.ensureRegisteredAgent(analystWallet)).toBe(first)
    expect(server.requests).toHaveLength(1)
  })

  it('hands out a frozen agent from its cache, so no caller can change it for the next', async () => {
    const server = await registryOfAnalyst()
    const registry = createRegistryClient({ baseUrl: server.url })
    const agent = await registry.ensureRegisteredAgent(analystWallet)
    expect(() => (agent.tools as string[]).push('rm_rf')).toThrow(TypeError)
    expect(() => {
      ;(agent as { model: string }).model = 'openai:gpt-4o'
    }).toThrow(TypeError)
    const again = await registry.ensureRegisteredAgent(analystWallet)
    expect(again).toEqual(agent)
    expect(again.model).toBe(agentRecord().model)
    expect(again.tools).not.toContain('rm_rf')
    expect(server.requests).toHaveLength(1)
  })

  it('fails closed on a redirect, even to a path that serves the agent', async () => {
    const server = await serve((request, response) => {
      if (request.url === `/agent/${analystWallet}`) {
        response.writeHead(302, { location: `/elsewhere/agent/${analystWallet}` })
        response.end()
      } else json(response, 200, agentRecord())
    })
    const registry = createRegistryClient({ baseUrl: server.url })
    const error = await rejection(registry.ensureRegisteredAgent(analystWallet))
    expect(error).toBeInstanceOf(RegistryUnavailableError)
    expect(error.message).toContain('redirect')
    expect(server.requests.map((request) => request.url)).toEqual([`/agent/${analystWallet}`])
  })

  it('fails closed on a 3xx that a custom fetch hands back as it is', async () => {
    const registry = createRegistryClient({
      baseUrl: 'http://registry.example',
      fetch: async () => new Response(null, { status: 307, headers: { location: '/other' } }),
    })
    const error = await rejection(registry.ensureRegisteredAgent(analystWallet))
    expect(error).toBeInstanceOf(RegistryUnavailableError)
    expect(error.details).toMatchObject({ status: 307 })
  })

  it('fails closed when a 200 body is not JSON', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end('<html>maintenance</html>')
    })
    const registry = createRegistryClient({ baseUrl: server.url })
    const error = await rejection(registry.ensureRegisteredAgent(analystWallet))
    expect(error).toBeInstanceOf(RegistryUnavailableError)
    expect(error.code).toBe('REGISTRY_UNAVAILABLE')
    expect(error.details).toMatchObject({ wallet: analystWallet, status: 200 })
    expect(error.message).toMatch(/not JSON/)
  })

  it('fails closed when a 200 body fails the Agent schema, naming the bad fields', async () => {
    const server = await serve((_request, response) =>
      json(response, 200, agentRecord({ model: 'gpt-4o', type: 'boss' as 'worker' })),
    )
    const registry = createRegistryClient({ baseUrl: server.url })
    const error = await rejection(registry.ensureRegisteredAgent(analystWallet))
    expect(error).toBeInstanceOf(RegistryUnavailableError)
    expect(error.message).toMatch(/not a valid agent \(type, model\)/)
  })

  it('fails closed when the registry answers with the agent of another wallet', async () => {
    const server = await serve((_request, response) =>
      json(response, 200, agentRecord({ wallet: reviewerWallet })),
    )
    const registry = createRegistryClient({ baseUrl: server.url })
    const error = await rejection(registry.ensureRegisteredAgent(analystWallet))
    expect(error).toBeInstanceOf(RegistryUnavailableError)
    expect(error.message).toContain(reviewerWallet)
    expect(error.details.wallet).toBe(analystWallet)
  })

  it('refuses a 404 as unregistered, carrying the wallet and status, and does not cache it', async () => {
    const server = await registryOfAnalyst()
    const registry = createRegistryClient({ baseUrl: server.url })
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await rejection(registry.ensureRegisteredAgent(reviewerWallet.toLowerCase()))
      expect(error).toBeInstanceOf(UnregisteredAgentError)
      expect(error).toMatchObject({ wallet: reviewerWallet, status: 404 })
      expect(error.details).toMatchObject({
        wallet: reviewerWallet,
        status: 404,
        url: `${server.url}/agent/${reviewerWallet}`,
      })
    }
    expect(server.requests).toHaveLength(2)
  })

  it('fails closed on a 500 and asks again next time', async () => {
    let status = 500
    const server = await serve((_request, response) =>
      status === 500 ? json(response, 500, { error: 'boom' }) : json(response, 200, agentRecord()),
    )
    const registry = createRegistryClient({ baseUrl: server.url })
    const error = await rejection(registry.ensureRegisteredAgent(analystWallet))
    expect(error).toBeInstanceOf(RegistryUnavailableError)
    expect(error).toMatchObject({ wallet: analystWallet, status: 500 })
    expect(error.message).toMatch(/HTTP 500/)
    status = 200
    expect((await registry.ensureRegisteredAgent(analystWallet)).wallet).toBe(analystWallet)
    expect(server.requests).toHaveLength(2)
  })

  it('fails closed on any other status that is not 200', async () => {
    for (const status of [201, 204, 401, 429]) {
      const server = await serve((_request, response) => {
        response.writeHead(status)
        response.end()
      })
      const registry = createRegistryClient({ baseUrl: server.url })
      const error = await rejection(registry.ensureRegisteredAgent(analystWallet))
      expect(error).toBeInstanceOf(RegistryUnavailableError)
      expect(error.details.status).toBe(status)
    }
  })

  it('fails closed when the registry never answers, aborting the request at timeoutMs', async () => {
    let requestClosed: Promise<void> | undefined
    const server = await serve((request) => {
      requestClosed = new Promise((resolve) => request.socket.once('close', () => resolve()))
    })
    const registry = createRegistryClient({ baseUrl: server.url, timeoutMs: 300 })
    const error = await rejection(registry.ensureRegisteredAgent(analystWallet))
    expect(error).toBeInstanceOf(RegistryUnavailableError)
    expect(error.message).toMatch(/no answer within 300 ms/)
    // The fetch itself was aborted: the client hung up on the silent server (on a very busy
    // machine it may even have given up before its request arrived).
    if (server.requests.length > 0) await requestClosed
  })

  it('fails closed when the registry sends headers but never finishes the body', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"id":')
    })
    const registry = createRegistryClient({ baseUrl: server.url, timeoutMs: 150 })
    const error = await rejection(registry.ensureRegisteredAgent(analystWallet))
    expect(error).toBeInstanceOf(RegistryUnavailableError)
    expect(error.message).toMatch(/no answer within 150 ms/)
  })

  it('fails closed when the body is far larger than any agent record', async () => {
    const server = await serve((_request, response) =>
      json(response, 200, { ...agentRecord(), description: 'x'.repeat(2 * 1024 * 1024) }),
    )
    const registry = createRegistryClient({ baseUrl: server.url })
    const error = await rejection(registry.ensureRegisteredAgent(analystWallet))
    expect(error).toBeInstanceOf(RegistryUnavailableError)
    expect(error.message).toMatch(/body over/)
  })

  it('fails closed on a network error (nothing listening on the port)', async () => {
    const port = await freePort()
    const registry = createRegistryClient({ baseUrl: `http://127.0.0.1:${port}` })
    const error = await rejection(registry.ensureRegisteredAgent(analystWallet))
    expect(error).toBeInstanceOf(RegistryUnavailableError)
    expect(error.message).toMatch(/network error \(ECONNREFUSED\)/)
    expect((error as RegistryUnavailableError).status).toBeUndefined()
  })

  it('caches a registered agent for ttlMs on the injected clock', async () => {
    const server = await registryOfAnalyst()
    let clock = 1_000
    const registry = createRegistryClient({ baseUrl: server.url, ttlMs: 5_000, now: () => clock })
    await registry.ensureRegisteredAgent(analystWallet)
    clock = 5_999
    await registry.ensureRegisteredAgent(analystWallet)
    expect(server.requests).toHaveLength(1)
    clock = 6_000
    await registry.ensureRegisteredAgent(analystWallet)
    expect(server.requests).toHaveLength(2)
  })

  it('asks every time when ttlMs is 0', async () => {
    const server = await registryOfAnalyst()
    const registry = createRegistryClient({ baseUrl: server.url, ttlMs: 0 })
    await registry.ensureRegisteredAgent(analystWallet)
    await registry.ensureRegisteredAgent(analystWallet)
    expect(server.requests).toHaveLength(2)
  })

  it('shares one request among concurrent look-ups of one wallet', async () => {
    const server = await serve((_request, response) => {
      setTimeout(() => json(response, 200, agentRecord()), 100)
    })
    const registry = createRegistryClient({ baseUrl: server.url })
    const spellings = [analystWallet, analystWallet.toLowerCase()]
    const agents = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        registry.ensureRegisteredAgent(spellings[index % 2]),
      ),
    )
    expect(server.requests).toHaveLength(1)
    expect(new Set(agents).size).toBe(1)
  })

  it('shares the failure of a shared request with every caller', async () => {
    const server = await serve((_request, response) => {
      setTimeout(() => json(response, 503, {}), 50)
    })
    const registry = createRegistryClient({ baseUrl: server.url })
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => registry.ensureRegisteredAgent(analystWallet)),
    )
    expect(server.requests).toHaveLength(1)
    for (const result of results) {
      expect(result.status).toBe('rejected')
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(RegistryUnavailableError)
    }
  })

  it('asks the registry again after invalidate or clear', async () => {
    const server = await registryOfAnalyst()
    const registry = createRegistryClient({ baseUrl: server.url })
    await registry.ensureRegisteredAgent(analystWallet)
    registry.invalidate(analystWallet.toLowerCase())
    await registry.ensureRegisteredAgent(analystWallet)
    registry.clear()
    await registry.ensureRegisteredAgent(analystWallet)
    await registry.ensureRegisteredAgent(analystWallet)
    expect(server.requests).toHaveLength(3)
  })

  it('does not cache an answer that was in flight when the wallet was invalidated', async () => {
    const server = await serve((_request, response) => {
      setTimeout(() => json(response, 200, agentRecord()), 50)
    })
    const registry = createRegistryClient({ baseUrl: server.url })
    const pending = registry.ensureRegisteredAgent(analystWallet)
    registry.invalidate(analystWallet)
    await pending
    await registry.ensureRegisteredAgent(analystWallet)
    expect(server.requests).toHaveLength(2)
  })

  it('rejects with the reason of a caller signal, leaving other callers their answer', async () => {
    const server = await serve((_request, response) => {
      setTimeout(() => json(response, 200, agentRecord()), 100)
    })
    const registry = createRegistryClient({ baseUrl: server.url })
    const controller = new AbortController()
    const impatient = registry.ensureRegisteredAgent(analystWallet, { signal: controller.signal })
    const patient = registry.ensureRegisteredAgent(analystWallet)
    const reason = new Error('caller gave up')
    controller.abort(reason)
    await expect(impatient).rejects.toBe(reason)
    expect((await patient).wallet).toBe(analystWallet)
    expect(server.requests).toHaveLength(1)
  })

  it('aborts the request when every caller has given up', async () => {
    let requestClosed: Promise<void> | undefined
    const server = await serve((request) => {
      requestClosed = new Promise((resolve) => request.socket.once('close', () => resolve()))
    })
    const registry = createRegistryClient({ baseUrl: server.url, timeoutMs: 60_000 })
    const controller = new AbortController()
    const lookup = registry.ensureRegisteredAgent(analystWallet, { signal: controller.signal })
    await expect.poll(() => server.requests.length, { timeout: 20_000 }).toBe(1)
    controller.abort(new Error('cancelled'))
    await expect(lookup).rejects.toThrow('cancelled')
    await requestClosed
  })

  it('rejects at once when the caller signal is already aborted', async () => {
    const server = await registryOfAnalyst()
    const registry = createRegistryClient({ baseUrl: server.url })
    const reason = new Error('already cancelled')
    await expect(
      registry.ensureRegisteredAgent(analystWallet, { signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason)
    expect(server.requests).toHaveLength(0)
  })

  it('sends credentials of the base URL as a header and never shows them in an error', async () => {
    const server = await serve((_request, response) => json(response, 500, {}))
    const baseUrl = `http://reg-user:s3cr3t-pass@127.0.0.1:${server.port}/?token=tok-abc123`
    const registry = createRegistryClient({ baseUrl })
    const error = await rejection(registry.ensureRegisteredAgent(analystWallet))
    expect(error).toBeInstanceOf(RegistryUnavailableError)
    expect(server.requests[0]).toEqual({
      method: 'GET',
      url: `/agent/${analystWallet}?token=tok-abc123`,
      authorization: `Basic ${Buffer.from('reg-user:s3cr3t-pass').toString('base64')}`,
    })
    const shown = `${error.message}\n${JSON.stringify(error.details)}\n${JSON.stringify(error)}`
    for (const secret of ['s3cr3t-pass', 'reg-user', 'tok-abc123']) {
      expect(shown).not.toContain(secret)
    }
    expect(error.details.url).toBe(`${server.url}/agent/${analystWallet}?token=***`)
  })

  it('sends percent-encoded credentials decoded, and keeps a stray % as typed', async () => {
    const server = await registryOfAnalyst()
    const encoded = createRegistryClient({
      baseUrl: `http://ops%40team:p%3Ass@127.0.0.1:${server.port}`,
    })
    await encoded.ensureRegisteredAgent(analystWallet)
    const stray = createRegistryClient({ baseUrl: `http://ops:100%zz@127.0.0.1:${server.port}` })
    await stray.ensureRegisteredAgent(analystWallet)
    expect(server.requests.map((request) => request.authorization)).toEqual([
      `Basic ${Buffer.from('ops@team:p:ss').toString('base64')}`,
      `Basic ${Buffer.from('ops:100%zz').toString('base64')}`,
    ])
  })

  it('never shows credentials in a network error or a 404 either', async () => {
    const port = await freePort()
    const closed = createRegistryClient({ baseUrl: `http://admin:hunter22@127.0.0.1:${port}` })
    const network = await rejection(closed.ensureRegisteredAgent(analystWallet))
    const server = await registryOfAnalyst()
    const open = createRegistryClient({
      baseUrl: `http://admin:hunter22@127.0.0.1:${server.port}`,
    })
    const missing = await rejection(open.ensureRegisteredAgent(reviewerWallet))
    expect(network).toBeInstanceOf(RegistryUnavailableError)
    expect(missing).toBeInstanceOf(UnregisteredAgentError)
    for (const error of [network, missing]) {
      const shown = `${error.message}\n${JSON.stringify(error.details)}`
      expect(shown).not.toContain('hunter22')
      expect(shown).not.toContain('admin')
    }
  })

  it('refuses options that are not usable, naming each', () => {
    let caught: unknown
    try {
      createRegistryClient({ baseUrl: 'ftp://registry.example', timeoutMs: 0, ttlMs: -1 })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ValidationError)
    expect((caught as ValidationError).issues.map((issue) => issue.path)).toEqual([
      'baseUrl',
      'timeoutMs',
      'ttlMs',
    ])
    expect(() => createRegistryClient({ baseUrl: 'not a url' })).toThrow(ValidationError)
  })

  it('refuses a timeoutMs longer than a timer can wait, which would time out at once', () => {
    const error = (() => {
      try {
        createRegistryClient({ baseUrl: 'http://registry.example', timeoutMs: 3e9 })
      } catch (error) {
        return error as ValidationError
      }
    })()
    expect(error).toBeInstanceOf(ValidationError)
    expect(error?.issues.map((issue) => issue.path)).toEqual(['timeoutMs'])
    expect(() =>
      createRegistryClient({ baseUrl: 'http://registry.example', timeoutMs: 2_147_483_647 }),
    ).not.toThrow()
  })
})
