import type { Redis } from 'ioredis'
import { Escalation } from './escalation'

/** How guards sharing a prefix tell each other of escalations; see `createEscalationChannel`. */
export type EscalationChannel = {
  /** Publishes `escalation` to the other guards; returns it. */
  announce(escalation: Escalation): Promise<Escalation>
  /** Calls `listener` with each escalation announced; returns what stops it. */
  watch(listener: (escalation: Escalation) => void): () => void
  close(): Promise<void>
}

/**
 * Other buses learn of an escalation through a Redis channel; a missed announcement is not
 * lost state, since `escalations()` reads Redis itself. The subscribing connection is opened on
 * the first `watch`.
 *
 * @example
 * const channel = createEscalationChannel(connect, 'baton:escalation-events')
 * const unwatch = channel.watch((escalation) => console.log(escalation.status))
 */
export function createEscalationChannel(
  connect: () => Promise<Redis>,
  events: string,
): EscalationChannel {
  const watchers = new Set<(escalation: Escalation) => void>()
  let subscriber: Promise<Redis> | undefined
  let closed = false

  async function announce(escalation: Escalation): Promise<Escalation> {
    const client = await connect()
    await client.publish(events, JSON.stringify(escalation)).catch(() => 0)
    return escalation
  }

  function listen(): void {
    subscriber ??= connect().then(async (client) => {
      const connection = client.duplicate()
      connection.on('error', () => {})
      connection.on('message', (_channel: string, text: string) => {
        let parsed: ReturnType<typeof Escalation.safeParse>
        try {
          parsed = Escalation.safeParse(JSON.parse(text))
        } catch {
          return
        }
        if (parsed.success) for (const watcher of [...watchers]) watcher(parsed.data)
      })
      await connection.subscribe(events)
      if (closed) connection.disconnect()
      return connection
    })
    subscriber.catch(() => {})
  }

  return {
    announce,
    watch(listener) {
      watchers.add(listener)
      listen()
      return () => {
        watchers.delete(listener)
      }
    },
    async close() {
      closed = true
      watchers.clear()
      if (subscriber) (await subscriber.catch(() => undefined))?.disconnect()
    },
  }
}
