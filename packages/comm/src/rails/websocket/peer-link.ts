import type { WebSocket } from 'ws'
import type { Envelope } from '../../envelope/envelope'

/**
 * Everything one remote peer has not acknowledged yet, and the socket to it when there is
 * one. The outbox outlives sockets: when a new socket attaches, every unacknowledged
 * envelope is sent again, in order.
 */
export class PeerLink {
  readonly key: string
  remotePeerId: string | undefined
  #socket: WebSocket | undefined
  readonly #outbox = new Map<string, Envelope>()
  #acksToSend: string[] = []
  #ackScheduled = false
  resent = 0
  /** When the last socket went away (undefined while connected or never connected). */
  disconnectedAt: number | undefined

  constructor(key: string) {
    this.key = key
  }

  get pending(): number {
    return this.#outbox.size
  }

  get connected(): boolean {
    return this.#socket !== undefined && this.#socket.readyState === 1
  }

  attach(socket: WebSocket): void {
    this.#socket = socket
    this.disconnectedAt = undefined
    for (const envelope of this.#outbox.values()) {
      this.resent += 1
      this.#write({ kind: 'envelope', envelope })
    }
  }

  detach(socket: WebSocket): void {
    if (this.#socket !== socket) return
    this.#socket = undefined
    this.disconnectedAt = Date.now()
  }

  send(envelope: Envelope): void {
    this.#outbox.set(envelope.id, envelope)
    this.#write({ kind: 'envelope', envelope })
  }

  /** Empties the outbox, returning what was in it. */
  drain(): Envelope[] {
    const envelopes = [...this.#outbox.values()]
    this.#outbox.clear()
    return envelopes
  }

  acknowledged(ids: readonly string[]): void {
    for (const id of ids) this.#outbox.delete(id)
  }

  /** Queues an ack; acks are batched once per tick so a burst costs a few frames. */
  ack(id: string): void {
    this.#acksToSend.push(id)
    if (this.#ackScheduled) return
    this.#ackScheduled = true
    setImmediate(() => {
      this.#ackScheduled = false
      const ids = this.#acksToSend
      this.#acksToSend = []
      // A lost ack only costs a resend, which the other side drops as a duplicate.
      this.#write({ kind: 'ack', ids })
    })
  }

  close(): void {
    this.#socket?.close()
    this.#socket = undefined
  }

  #write(frame: unknown): void {
    if (this.#socket?.readyState !== 1) return
    this.#socket.send(JSON.stringify(frame))
  }
}
