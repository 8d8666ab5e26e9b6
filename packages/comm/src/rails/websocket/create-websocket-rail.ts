import { parseWith } from '@baton/core'
import type { WebSocket, WebSocketServer } from 'ws'
import type { Envelope } from '../../envelope/envelope'
import { BoundedIdSet } from '../bounded-id-set'
import type { TransportReceiver } from '../transport'
import { TransportError } from '../transport-error'
import { decodeFrame, type Frame } from './frames'
import { PeerLink } from './peer-link'
import { WebSocketRailSettings } from './websocket-rail-settings'
import type {
  WebSocketRail,
  WebSocketRailOptions,
  WebSocketRailStats,
} from './websocket-rail-types'

export type {
  WebSocketRail,
  WebSocketRailOptions,
  WebSocketRailStats,
} from './websocket-rail-types'

/**
 * A rail between local peers over WebSocket. One peer listens, the others connect; every
 * envelope goes to every peer (a listener relays between the peers connected to it), is
 * acknowledged, and is sent again after a reconnect until it is, so delivery is at least
 * once and duplicates are dropped by id.
 *
 * @example
 * const hub = createWebSocketRail({ peerId: 'hub', listen: { port: 7400, host: '127.0.0.1' } })
 * const worker = createWebSocketRail({ peerId: 'worker-1', connect: ['ws://127.0.0.1:7400'] })
 * const bus = createMessageBus({ transport: worker })
 */
export function createWebSocketRail(options: WebSocketRailOptions): WebSocketRail {
  parseWith(WebSocketRailSettings, options, 'websocket rail options')
  return new WebSocketRailImpl(options)
}

const NAME = 'websocket'

class WebSocketRailImpl implements WebSocketRail {
  readonly name = NAME
  readonly #options: WebSocketRailOptions
  readonly #links = new Map<string, PeerLink>()
  readonly #seen: BoundedIdSet
  readonly #timers = new Set<ReturnType<typeof setTimeout>>()
  readonly #sockets = new Set<WebSocket>()
  // Sockets that answered the last ping; a half-open connection never does, and is dropped.
  readonly #alive = new WeakSet<WebSocket>()
  #heartbeat: ReturnType<typeof setInterval> | undefined
  // Envelopes published by a listener before any peer arrived; the first peer gets them.
  readonly #unrouted = new PeerLink('unrouted')
  #receiver: TransportReceiver | undefined
  #server: WebSocketServer | undefined
  #address: { host: string; port: number } | undefined
  #closed = false
  #received = 0
  #duplicates = 0

  constructor(options: WebSocketRailOptions) {
    if (!options.listen && !options.connect?.length) {
      throw new TransportError({
        transport: NAME,
        message: `peer "${options.peerId}" needs \`listen\`, \`connect\`, or both`,
      })
    }
    this.#options = options
    this.#seen = new BoundedIdSet(options.dedupeWindow ?? 100_000)
  }

  async start(receiver: TransportReceiver): Promise<void> {
    this.#receiver = receiver
    const ws = await import('ws')
    this.#heartbeat = setInterval(() => this.#beat(), this.#options.heartbeatMs ?? 15_000)
    this.#heartbeat.unref?.()
    if (this.#options.listen) await this.#listen(ws.WebSocketServer, this.#options.listen)
    for (const url of this.#options.connect ?? []) {
      const link = new PeerLink(url)
      this.#links.set(url, link)
      this.#connect(ws.WebSocket, link, url, 0)
    }
  }

  async publish(envelope: Envelope): Promise<void> {
    if (this.#closed) {
      throw new TransportError({
        transport: NAME,
        message: 'the rail is closed',
        envelopeId: envelope.id,
      })
    }
    const maxPending = this.#options.maxPending ?? 100_000
    const targets = this.#links.size > 0 ? [...this.#links.values()] : [this.#unrouted]
    const full = targets.find((link) => link.pending >= maxPending)
    if (full) {
      throw new TransportError({
        transport: NAME,
        message: `${full.pending} envelopes wait for peer "${full.remotePeerId ?? full.key}" to acknowledge them; refusing more`,
        envelopeId: envelope.id,
      })
    }
    this.#seen.add(envelope.id)
    for (const link of targets) link.send(envelope)
    // Agents of this process may be the recipients too.
    await this.#receiver?.(envelope)
  }

  address(): { host: string; port: number } | undefined {
    return this.#address
  }

  pending(): number {
    let total = this.#unrouted.pending
    for (const link of this.#links.values()) total += link.pending
    return total
  }

  async flush(options: { timeoutMs?: number } = {}): Promise<void> {
    const deadline = Date.now() + (options.timeoutMs ?? 30_000)
    while (this.pending() > 0) {
      if (Date.now() > deadline) {
        throw new TransportError({
          transport: NAME,
          message: `${this.pending()} envelopes still unacknowledged after ${options.timeoutMs ?? 30_000} ms`,
        })
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  peers(): string[] {
    return [...this.#links.values()]
      .filter((link) => link.connected)
      .map((link) => link.remotePeerId ?? link.key)
  }

  stats(): WebSocketRailStats {
    let resent = 0
    for (const link of this.#links.values()) resent += link.resent
    return { received: this.#received, duplicates: this.#duplicates, resent }
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    for (const timer of this.#timers) clearTimeout(timer)
    clearInterval(this.#heartbeat)
    for (const socket of this.#sockets) socket.terminate()
    const server = this.#server
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  async #listen(
    Server: typeof WebSocketServer,
    listen: { port: number; host?: string },
  ): Promise<void> {
    const server = new Server({ port: listen.port, host: listen.host ?? '127.0.0.1' })
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve)
      server.once('error', reject)
    }).catch((error: unknown) => {
      throw new TransportError({
        transport: NAME,
        message: `peer "${this.#options.peerId}" cannot listen on ${listen.host ?? '127.0.0.1'}:${listen.port}`,
        cause: error,
      })
    })
    const address = server.address()
    if (typeof address === 'object' && address) {
      this.#address = { host: address.address, port: address.port }
    }
    this.#server = server
    server.on('connection', (socket) => {
      this.#track(socket)
      // A listener learns who connected from the hello; until then it cannot route to it.
      let link: PeerLink | undefined
      socket.on('message', (data) => {
        const frame = decodeFrame(String(data))
        if (!frame) return
        if (frame.kind === 'hello') {
          link = this.#links.get(`peer:${frame.peerId}`) ?? this.#adoptPeer(frame.peerId)
          link.remotePeerId = frame.peerId
          socket.send(JSON.stringify({ kind: 'hello', peerId: this.#options.peerId }))
          link.attach(socket)
          socket.once('close', () => link?.detach(socket))
          return
        }
        if (link) this.#handle(link, frame)
      })
    })
  }

  #adoptPeer(peerId: string): PeerLink {
    const link = new PeerLink(`peer:${peerId}`)
    if (this.#links.size === 0 && this.#unrouted.pending > 0) {
      for (const envelope of this.#unrouted.drain()) link.send(envelope)
    }
    this.#links.set(link.key, link)
    return link
  }

  #connect(Socket: typeof WebSocket, link: PeerLink, url: string, attempt: number): void {
    if (this.#closed) return
    const socket = new Socket(url)
    this.#track(socket)
    socket.on('open', () => {
      socket.send(JSON.stringify({ kind: 'hello', peerId: this.#options.peerId }))
    })
    socket.on('message', (data) => {
      const frame = decodeFrame(String(data))
      if (!frame) return
      if (frame.kind === 'hello') {
        link.remotePeerId = frame.peerId
        attempt = 0
        link.attach(socket)
        return
      }
      this.#handle(link, frame)
    })
    // An error is always followed by close, which schedules the next try.
    socket.on('error', () => {})
    socket.on('close', () => {
      link.detach(socket)
      if (this.#closed) return
      const { minDelayMs = 100, maxDelayMs = 5_000 } = this.#options.reconnect ?? {}
      const delay = Math.min(maxDelayMs, minDelayMs * 2 ** attempt) * (0.75 + Math.random() / 2)
      const timer = setTimeout(() => {
        this.#timers.delete(timer)
        this.#connect(Socket, link, url, attempt + 1)
      }, delay)
      this.#timers.add(timer)
    })
  }

  #handle(link: PeerLink, frame: Frame): void {
    if (frame.kind === 'ack') {
      link.acknowledged(frame.ids)
      return
    }
    if (frame.kind !== 'envelope') return
    const envelope = frame.envelope as Envelope
    this.#received += 1
    if (!this.#seen.add(envelope.id)) {
      this.#duplicates += 1
      link.ack(envelope.id)
      return
    }
    // A listener passes what one peer sent on to the others.
    for (const other of this.#links.values()) if (other !== link) other.send(envelope)
    const receiver = this.#receiver
    const delivered = receiver ? receiver(envelope) : Promise.resolve()
    delivered.then(
      () => link.ack(envelope.id),
      () => link.ack(envelope.id),
    )
  }

  #track(socket: WebSocket): void {
    this.#sockets.add(socket)
    this.#alive.add(socket)
    socket.on('pong', () => this.#alive.add(socket))
    socket.once('close', () => this.#sockets.delete(socket))
  }

  #beat(): void {
    const cutoff = Date.now() - (this.#options.peerTimeoutMs ?? 5 * 60 * 1000)
    for (const [key, link] of this.#links) {
      // Peers this rail connects to are configured, so it keeps waiting for them.
      if (!key.startsWith('peer:')) continue
      if (link.disconnectedAt !== undefined && link.disconnectedAt < cutoff) this.#links.delete(key)
    }
    for (const socket of this.#sockets) {
      if (socket.readyState !== 1) continue
      // terminate() fires close, so a connecting side reconnects and resends.
      if (!this.#alive.has(socket)) socket.terminate()
      else {
        this.#alive.delete(socket)
        socket.ping()
      }
    }
  }
}
