import { type ChildProcess, spawn } from 'node:child_process'
import { createServer, Socket as NetSocket, type Server, type Socket } from 'node:net'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { killAll } from '@baton/testing/processes'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'
import { createMessageBus } from '../../bus/create-message-bus'
import type { Envelope } from '../../envelope/envelope'
import { createWebSocketRail } from './create-websocket-rail'

const fixture = fileURLToPath(new URL('../__fixtures__/websocket-peer.ts', import.meta.url))
const children: ChildProcess[] = []
const servers: Server[] = []

afterEach(() => {
  killAll(children.splice(0))
  for (const server of servers.splice(0)) server.close()
})

type Line = Record<string, unknown> & { event: string }

function startPeer(args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@baton/source', fixture, ...args],
    { cwd: fileURLToPath(new URL('.', import.meta.url)), stdio: ['pipe', 'pipe', 'pipe'] },
  )
  children.push(child)
  let stderr = ''
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk)
  })
  const waiting = new Map<string, (line: Line) => void>()
  const seen = new Map<string, Line>()
  createInterface({ input: child.stdout! }).on('line', (text) => {
    const line = JSON.parse(text) as Line
    seen.set(line.event, line)
    waiting.get(line.event)?.(line)
  })
  return {
    child,
    next(event: string, timeoutMs = 120_000): Promise<Line> {
      const already = seen.get(event)
      if (already) return Promise.resolve(already)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`peer never said "${event}"; stderr:\n${stderr}`)),
          timeoutMs,
        )
        child.once('exit', (code) => {
          if (!seen.has(event))
            reject(new Error(`peer exited (${code}) before "${event}":\n${stderr}`))
        })
        waiting.set(event, (line) => {
          clearTimeout(timer)
          resolve(line)
        })
      })
    },
    command(line: string) {
      child.stdin?.write(`${line}\n`)
    },
  }
}

/** A TCP hop between the peers that can cut every connection through it, like a network drop. */
async function startCuttableProxy(targetPort: number, cutAfterBytes: number) {
  const sockets = new Set<Socket>()
  let forwarded = 0
  let cuts = 0
  const server = createServer((client) => {
    const upstream = new NetSocket()
    upstream.connect(targetPort, '127.0.0.1')
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => sockets.delete(socket))
    }
    client.on('data', (chunk) => {
      forwarded += chunk.length
      upstream.write(chunk)
      if (cuts === 0 && forwarded >= cutAfterBytes) {
        cuts += 1
        for (const socket of sockets) socket.destroy()
      }
    })
    upstream.on('data', (chunk) => client.write(chunk))
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (typeof address !== 'object' || !address) throw new Error('proxy has no address')
  return { port: address.port, cuts: () => cuts }
}

describe('createWebSocketRail', () => {
  it('exchanges 10,000 envelopes between two processes with no loss and no duplicate, across a dropped connection', async () => {
    const listener = startPeer(['listen'])
    const { port } = (await listener.next('listening')) as Line & { port: number }
    // Each envelope is a few hundred bytes: cut the line about a third of the way through.
    const proxy = await startCuttableProxy(port, 600_000)
    const connector = startPeer(['connect', `ws://127.0.0.1:${proxy.port}`])
    await connector.next('ready')
    // 5,000 each way, at the same time
    connector.command('send 5000')
    listener.command('send 5000')
    type Flushed = Line & { stats: { resent: number } }
    const flushed = (await Promise.all([connector.next('flushed'), listener.next('flushed')])) as [
      Flushed,
      Flushed,
    ]
    expect(proxy.cuts()).toBe(1)
    // the cut lost envelopes in flight, which were sent again
    expect(flushed[0].stats.resent).toBeGreaterThan(0)
    for (const peer of [listener, connector]) peer.command('report')
    for (const peer of [listener, connector]) {
      expect(await peer.next('report')).toMatchObject({ unique: 5_000, duplicates: 0 })
      peer.command('exit')
    }
  }, 180_000)

  it('delivers both ways between a listener and a connector in one process, and locally', async () => {
    const hub = createWebSocketRail({ peerId: 'hub', listen: { port: 0 } })
    const hubBus = createMessageBus({ transport: hub })
    await hubBus.ready()
    const spoke = createWebSocketRail({
      peerId: 'spoke',
      connect: [`ws://127.0.0.1:${hub.address()?.port}`],
    })
    const spokeBus = createMessageBus({ transport: spoke })
    await spokeBus.ready()

    const atHub: Envelope[] = []
    const atSpoke: Envelope[] = []
    hubBus.subscribe('planner', (message) => {
      atHub.push(message)
    })
    spokeBus.subscribe('coder', (message) => {
      atSpoke.push(message)
      void spokeBus.reply(message, 'done')
    })
    const local: Envelope[] = []
    hubBus.subscribe('notes', (message) => {
      local.push(message)
    })

    // sent before the spoke said hello: held, then delivered once it does
    const task = await hubBus.send({
      from: { agentId: 'planner' },
      to: { agentId: 'coder' },
      content: 'build',
    })
    await hubBus.send({ from: { agentId: 'planner' }, to: { agentId: 'notes' }, content: 'memo' })
    await hub.flush()
    await until(() => atHub.length === 1)
    expect(atSpoke.map((message) => message.id)).toEqual([task.id])
    expect(atHub[0]).toMatchObject({ type: 'reply', correlationId: task.correlationId, hop: 1 })
    expect(local.map((message) => message.content)).toEqual(['memo'])
    expect(hub.peers()).toEqual(['spoke'])
    await spokeBus.close()
    await hubBus.close()
  })

  it('relays between two peers connected to one listener, delivering once', async () => {
    const hub = createWebSocketRail({ peerId: 'hub', listen: { port: 0 } })
    const hubBus = createMessageBus({ transport: hub })
    await hubBus.ready()
    const url = `ws://127.0.0.1:${hub.address()?.port}`
    const buses = [hubBus]
    const received: Envelope[] = []
    const spokes = ['left', 'right'].map((peerId) => {
      const rail = createWebSocketRail({ peerId, connect: [url] })
      const bus = createMessageBus({ transport: rail })
      buses.push(bus)
      return { rail, bus }
    })
    spokes[1]?.bus.subscribe('right-agent', (message) => {
      received.push(message)
    })
    await until(() => hub.peers().length === 2)
    const sent = await spokes[0]!.bus.send({
      from: { agentId: 'left-agent' },
      to: { agentId: 'right-agent' },
      content: 'over the hub',
    })
    await until(() => received.length === 1)
    await spokes[0]!.rail.flush()
    await hub.flush()
    expect(received).toEqual([sent])
    expect(hubBus.history(sent.correlationId)).toEqual([sent])
    for (const bus of buses.reverse()) await bus.close()
  })

  it('drops a peer that stops answering pings, then reconnects and resends', async () => {
    // A peer whose connection went half-open: it takes frames but never answers a ping.
    const silent = new WebSocketServer({ port: 0, host: '127.0.0.1', autoPong: false })
    await new Promise((resolve) => silent.once('listening', resolve))
    const connections: string[][] = []
    silent.on('connection', (socket) => {
      const frames: string[] = []
      connections.push(frames)
      socket.on('message', (data) => frames.push(JSON.parse(String(data)).kind))
    })
    const port = (silent.address() as { port: number }).port
    const rail = createWebSocketRail({
      peerId: 'pinger',
      connect: [`ws://127.0.0.1:${port}`],
      heartbeatMs: 100,
      reconnect: { minDelayMs: 20, maxDelayMs: 50 },
    })
    const bus = createMessageBus({ transport: rail })
    await bus.send({ from: { agentId: 'a' }, to: { agentId: 'b' }, content: 'x' })
    await until(() => connections.length >= 2)
    // the first connection got a hello; the envelope, never acknowledged, is still pending
    expect(connections[0]?.[0]).toBe('hello')
    expect(rail.pending()).toBe(1)
    await bus.close()
    await new Promise((resolve) => silent.close(resolve))
  })

  it('forgets a peer that stays away past peerTimeoutMs, so it cannot block publishing', async () => {
    const hub = createWebSocketRail({
      peerId: 'hub',
      listen: { port: 0 },
      maxPending: 2,
      heartbeatMs: 50,
      peerTimeoutMs: 200,
    })
    const hubBus = createMessageBus({ transport: hub })
    await hubBus.ready()
    const leaver = createWebSocketRail({
      peerId: 'leaver',
      connect: [`ws://127.0.0.1:${hub.address()?.port}`],
    })
    const leaverBus = createMessageBus({ transport: leaver })
    await until(() => hub.peers().length === 1)
    await leaverBus.close()
    await until(() => hub.peers().length === 0)

    const send = () => hubBus.send({ from: { agentId: 'x' }, to: { agentId: 'y' }, content: '.' })
    await send()
    await send()
    // the departed peer's outbox is full for now...
    await expect(send()).rejects.toMatchObject({ code: 'TRANSPORT_FAILED' })
    // ...until the hub gives up on it
    await until(() => hub.pending() === 0)
    await expect(send()).resolves.toMatchObject({ content: '.' })
    await hubBus.close()
  })

  it('refuses malformed options with a ValidationError naming the option', () => {
    const cases: [Parameters<typeof createWebSocketRail>[0], string][] = [
      [{ peerId: '', connect: ['ws://127.0.0.1:1'] }, 'peerId'],
      [{ peerId: 'a', connect: ['http://127.0.0.1:1'] }, 'connect[0]'],
      [{ peerId: 'a', listen: { port: 70_000 } }, 'listen.port'],
      [{ peerId: 'a', listen: { port: 0 }, heartbeatMs: 0 }, 'heartbeatMs'],
    ]
    for (const [options, field] of cases) {
      expect(() => createWebSocketRail(options)).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_FAILED',
          message: expect.stringContaining(field),
        }),
      )
    }
  })

  it('refuses a rail with neither listen nor connect', () => {
    expect(() => createWebSocketRail({ peerId: 'lonely' })).toThrow(/needs `listen`/)
  })

  it('rejects publish once the outbox for a peer is full', async () => {
    const rail = createWebSocketRail({ peerId: 'a', connect: ['ws://127.0.0.1:9'], maxPending: 2 })
    const bus = createMessageBus({ transport: rail })
    const send = () => bus.send({ from: { agentId: 'x' }, to: { agentId: 'y' }, content: '.' })
    await send()
    await send()
    await expect(send()).rejects.toMatchObject({ code: 'TRANSPORT_FAILED' })
    await bus.close()
  })
})

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
